// DeepEP normal kernels (deepseek-ai/DeepEP docs/legacy.md): the collective model's dispatch and combine
// alone on an idle H800 cluster, reported as DeepEP's benchmarks report them (bytes over the bottleneck
// link class per rank / kernel time).
#include <fmt/format.h>

#include <algorithm>

#include "sim/net/network_factory.hpp"
#include "sim/train/step_band.hpp"
#include "sim/workload/moe_sampling.hpp"
#include "validate/validation.hpp"
#include "validate/validation_csv.hpp"
#include "topologies/topology.hpp"

namespace k3::validate {

namespace {

// The benchmark's setup (DeepEP tests/test_intranode.py and test_internode.py as described in
// docs/legacy.md): 4096 tokens per rank, hidden 7168, 256 experts, top-8, top-4 groups (node-limited
// routing to 4 nodes), FP8 dispatch with one fp32 scale per 128 elements, BF16 combine.
constexpr int kTokensPerRank = 4096;
constexpr int kHidden = 7168;
constexpr int kExperts = 256;
constexpr int kTopK = 8;
constexpr int kNodeLimit = 4;
constexpr double kFp8BytesPerElement = 1.0 + 4.0 / 128;
constexpr double kBf16BytesPerElement = 2.0;

struct Bandwidths {
  double dispatch_bytes_per_s = 0;
  double combine_bytes_per_s = 0;
};

// DeepEP's benchmarks report logical ("algorithm") bandwidth, bytes counted per rank at the sender and
// including the rank's own node and GPU (tests/test_internode.py: num_rdma_token_sent = the (token, distinct target
// node) pairs, the token's own node included, x hidden x bytes per element; tests/test_intranode.py: recv_x rows,
// the rank's own included; maintainer in DeepEP issue #141: "our results show algorithm bandwidth"). So the bytes are
// the routing's distinct nodes (RDMA rows) or distinct GPUs (NVLink rows) per token x tokens x bytes per token,
// divided by the simulated kernel time; the wire bytes of the simulation are smaller by the local share.
double logical_bytes_per_rank(const workload::MoeSample& sample, bool nvlink, double bytes_per_element) {
  const double copies = nvlink ? sample.distinct_gpus_per_token : sample.distinct_nodes_per_token;
  return copies * kTokensPerRank * kHidden * bytes_per_element;
}

double simulate_seconds(const topo::Topology& topology, const std::vector<parallel::GpuIndex>& group,
                        const workload::TrafficMatrix& m, const net::LinkEfficiency& efficiency) {
  net::CollectiveSpec s;
  s.op = net::CollectiveOp::alltoall;
  s.algorithm = net::CollectiveAlgorithm::deepep;
  s.ranks.assign(group.begin(), group.end());
  s.byte_matrix = m.bytes;
  s.node_bytes = m.node_bytes;
  return net::simulate_collective(topology, s, net::network_model("flow", {}), efficiency).time_s;
}

struct DeepEpRun {
  Bandwidths nominal;
  std::vector<Bandwidths> samples;  // one per band sample of the link figures
};

DeepEpRun simulate_deepep(const topo::Topology& topology, int ep, bool nvlink, int band_samples) {
  workload::MoeSamplingSpec m;
  m.model_name = "deepep-benchmark";
  m.experts = kExperts;
  m.top_k = kTopK;
  m.width = kHidden;
  for (int g = 0; g < ep; ++g) m.group.push_back(static_cast<parallel::GpuIndex>(g));
  m.gpus_per_node = topology.gpus_per_node();
  // DeepEP's tests take min(nodes, 4) groups; one node needs no limit.
  const int nodes = (ep + topology.gpus_per_node() - 1) / topology.gpus_per_node();
  m.node_limit = nodes > 1 ? std::min(kNodeLimit, nodes) : 0;
  m.dispatch_bytes_per_element = kFp8BytesPerElement;
  m.combine_bytes_per_element = kBf16BytesPerElement;
  m.tokens_per_gpu = kTokensPerRank;
  m.balanced = true;
  m.distinct_samples = 1;
  m.sample_tokens = 1024;
  m.seed = 1;
  const auto sample = workload::sample_moe(m);
  const auto& layer = sample.layers.front();
  const double dispatch_bytes = logical_bytes_per_rank(sample, nvlink, kFp8BytesPerElement);
  const double combine_bytes = logical_bytes_per_rank(sample, nvlink, kBf16BytesPerElement);
  const auto run = [&](const net::LinkEfficiency& e) {
    return Bandwidths{dispatch_bytes / simulate_seconds(topology, m.group, *layer.dispatch, e),
                      combine_bytes / simulate_seconds(topology, m.group, *layer.combine, e)};
  };
  // The link figures and DeepEP's copy rate are the only numbers this collective reads: their ranges make its band.
  core::Provenance nominal;
  const auto figures = [&](core::Provenance& p) {
    net::LinkEfficiency e = net::register_link_figures(topology, p);
    e.sm_copy_nvlink = net::register_deepep_copy_rate(p);
    return e;
  };
  DeepEpRun out{run(figures(nominal)), {}};
  for (const auto& overrides : train::band_samples(nominal.entries(), band_samples, m.seed)) {
    core::Provenance p(overrides);
    out.samples.push_back(run(figures(p)));
  }
  return out;
}

}  // namespace

std::vector<ValidationCase> validate_deepep(const ValidationPaths& paths, std::vector<std::string>& assumptions) {
  const auto table = read_published_csv(paths.data_dir + "/deepep-normal.csv");
  // DeepEP's numbers were measured on H800 nodes with CX7 400G IB: the DeepSeek-V3 cluster preset.
  const auto topology = topo::load_topology("h800-dsv3-2048");
  assumptions.push_back("DeepEP normal kernels simulated on topology h800-dsv3-2048 with the flow network: "
                        "4096 tokens/rank, hidden 7168, 256 experts, top-8, node limit 4, uniform routing "
                        "(deepseek-ai/DeepEP docs/legacy.md); NVLink copies at DeepEP's measured SM copy rate (alltoall.deepep.nvlink_copy_fraction)");
  std::vector<ValidationCase> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const int ep = static_cast<int>(table.number(r, "ep"));
    const std::string path = table.text(r, "path");
    const bool nvlink = path == "nvlink";
    const auto run = simulate_deepep(topology, ep, nvlink, paths.band_samples);
    const auto& bw = run.nominal;
    for (const bool dispatch : {true, false}) {
      ValidationCase c;
      c.name = fmt::format("deepep ep{} {}", ep, path);
      c.group = "deepep";
      c.quantity = "collective bandwidth";
      c.metric = dispatch ? "dispatch bottleneck bandwidth" : "combine bottleneck bandwidth";
      c.unit = "GB/s";
      c.predicted = (dispatch ? bw.dispatch_bytes_per_s : bw.combine_bytes_per_s) / 1e9;
      c.published = table.number(r, dispatch ? "dispatch_gbps" : "combine_gbps");
      c.rel_error = (c.predicted - c.published) / c.published;
      if (!run.samples.empty()) {
        std::vector<double> gbps;
        for (const auto& b : run.samples) gbps.push_back((dispatch ? b.dispatch_bytes_per_s : b.combine_bytes_per_s) / 1e9);
        const auto q = train::quantiles(gbps);
        c.set_band(q.p10, q.p50, q.p90);
      }
      c.source = "deepseek-ai/DeepEP docs/legacy.md, normal kernels";
      c.setup = fmt::format("EP{} over {} ({} per rank)", ep, nvlink ? "NVLink" : "RDMA",
                            dispatch ? "FP8 dispatch" : "BF16 combine");
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace k3::validate
