#include "sim/train/step_setup.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "sim/exec/graph_executor.hpp"
#include "sim/cost/kernel_table_import.hpp"
#include "sim/cost/measured_links.hpp"
#include "sim/net/network_factory.hpp"

namespace k3::train {

namespace {

using core::InputError;

cost::DeviceModel device_of(const topo::GpuType& g) {
  return {g.name, g.bf16_flops_per_s, g.fp8_flops_per_s, g.hbm_bytes_per_s, g.sms, g.source, g.mxfp8_flops_per_s,
          g.nvfp4_flops_per_s};
}

// The tables were measured on a 2025-2026 software stack (CUDA 12-13 libraries): a run that states the CUDA 11 one
// keeps that stack's own GEMM measurement and the roofline, as does one that asks for the roofline.
bool prices_from_tables(const StepSpec& sc) { return !sc.roofline_kernels && !sc.bf16_gemm_cuda11; }

}  // namespace

cost::OpCostModel make_step_cost_model(const StepSpec& sc, const topo::Topology& topo,
                                       const cost::CalibrationProfile* profile, core::Provenance& prov) {
  cost::KernelChoice kernels;
  kernels.attention = sc.attention_kernel;
  kernels.fp8 = sc.fp8_gemm_kernels;
  kernels.bf16 = sc.bf16_gemm_cuda11 ? cost::Bf16GemmKernels::cuda11 : cost::Bf16GemmKernels::cuda12;
  if (prices_from_tables(sc)) kernels.measured = cost::shipped_kernel_tables_of(topo.gpu_type().name);
  kernels.main_grad_bytes = sc.precision.gradient_reduce_bytes;
  try {
    return cost::OpCostModel(device_of(topo.gpu_type()), profile, sc.precision.gemm, kernels, prov);
  } catch (const InputError& e) {
    if (!e.where().file.empty()) throw;
    throw InputError({sc.source, e.where().key, sc.bf16_gemm_kernels_line}, e.problem(), e.allowed());
  }
}

exec::PassRunnerConfig make_step_runner_config(const StepSpec& sc, const topo::Topology& topo, const StepReuse* reuse,
                                               core::Provenance& prov) {
  exec::PassRunnerConfig c;
  // NVLink at the rate NCCL reached on the GPU itself, where its tables ship and kernels are priced from tables.
  c.efficiency = net::register_link_figures(
      topo, prov, prices_from_tables(sc) ? cost::shipped_nccl_link_rates(topo) : net::MeasuredLinkRates{});
  if (reuse != nullptr) {
    c.solo_memo = reuse->collectives;
    c.replays = reuse->replays;
  }
  c.network = sc.network;
  switch (sc.communication.alltoall) {
    case workload::AllToAllAlgorithm::flat: c.alltoall = net::CollectiveAlgorithm::flat; break;
    case workload::AllToAllAlgorithm::deepep: c.alltoall = net::CollectiveAlgorithm::deepep; break;
    case workload::AllToAllAlgorithm::deepep_ll: c.alltoall = net::CollectiveAlgorithm::deepep_ll; break;
  }
  if (net::uses_sm_copies(c.alltoall)) {
    // DeepEP as measured on the GPU itself at the SMs the scenario gives communication, where tables price the run.
    const int deepep_sms = sc.communication.comm_sms > 0 ? sc.communication.comm_sms : cost::kDeepepDefaultSms;
    c.efficiency.sm_copy_nvlink = net::register_deepep_copy_rate(
        prov, prices_from_tables(sc) ? cost::shipped_deepep_copy_rate(topo, deepep_sms) : std::nullopt);
  }
  if (c.alltoall == net::CollectiveAlgorithm::deepep) {
    // A count: no range (the band's runs share collectives simulated with it).
    c.deepep_pipeline_chunks = static_cast<int>(prov.add_exact(
        "alltoall.deepep_pipeline_chunks", 4, "count", core::SourceKind::assumption,
        "DeepEP-style all-to-all: each NIC copy is sent in 4 chunks whose NVLink forwarding starts as each "
        "arrives (deepseek-ai/DeepEP overlaps the RDMA and NVLink stages; the chunk count is assumed)"));
  }
  // While a communication kernel runs on a GPU it holds these SMs (DeepSeek-V3: 20 of 132), so compute beside it
  // runs on the rest; execute_pass applies the slowdown only while one runs.
  const int sms = topo.gpu_type().sms, held = sc.communication.comm_sms;
  c.comm_sm_slowdown = cost::comm_sm_slowdown(
      sms, held,
      fmt::format("while a communication kernel runs on its GPU, compute runs on the {} of {} SMs it leaves (DeepSeek-V3, "
                  "arXiv:2412.19437 section 3.2.2: 20 of 132), slower in proportion; half of that slowdown as the low end",
                  sms - held, sms),
      prov);
  return c;
}

std::vector<std::vector<net::CollectiveSpec>> pipeline_transfer(const parallel::RankMapping& map, double bytes, int from,
                                                                int to) {
  const int tp = map.layout().tp;
  std::vector<std::vector<net::CollectiveSpec>> phases(1);
  for (int t = 0; t < tp; ++t) {
    net::CollectiveSpec s;
    s.op = net::CollectiveOp::sendrecv;
    s.algorithm = net::CollectiveAlgorithm::flat;
    s.ranks = {map.gpu_of({t, 0, 0, from}), map.gpu_of({t, 0, 0, to})};
    s.bytes = bytes / tp;
    phases.front().push_back(s);
  }
  if (tp > 1) {
    net::CollectiveSpec gather;
    gather.op = net::CollectiveOp::allgather;
    gather.algorithm = net::CollectiveAlgorithm::ring;
    const auto g = map.tp_group(map.gpu_of({0, 0, 0, to}));
    gather.ranks.assign(g.begin(), g.end());
    gather.bytes = bytes;
    phases.push_back({gather});
  }
  return phases;
}

core::SimTime replay_step_graph(const exec::StepGraph& graph, const StepSpec& scenario, const topo::Topology& topology) {
  core::Provenance prov(scenario.assumption_overrides);
  const exec::PassRunner runner(topology, make_step_runner_config(scenario, topology, nullptr, prov));
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    for (const auto& c : graph.nodes[n].collectives) {
      for (auto g : c.ranks) {
        if (g >= topology.gpu_count()) {
          throw core::InputError({"--replay-graph", fmt::format("/nodes/{}/collectives", n), 0},
                                 fmt::format("GPU {} is not in the scenario's cluster", g),
                                 fmt::format("GPUs 0..{} (the graph of a step of this scenario)", topology.gpu_count() - 1));
        }
      }
    }
  }
  return exec::run_step_graph(graph, &runner, topology.gpu_type().sms).makespan;
}

NcclSms register_nccl_sms(core::Provenance& prov) {
  NcclSms n;
  // Counts: exact (the band's runs share the graph's structure).
  n.ring = static_cast<int>(prov.add_exact(
      "nccl.ring_sms", 8, "count", core::SourceKind::collective_measurement,
      "SMs a ring collective between nodes holds: NCCL runs it on 8 channels of one CTA each in its own logs, 16 "
      "GPUs over 2 nodes of 8 with InfiniBand (NVIDIA/nccl issue #1412: Channel 00/08 .. 07/08) and 4 H20 over 2 "
      "nodes (issue #1189: 8 coll channels)"));
  n.p2p = static_cast<int>(prov.add_exact(
      "nccl.p2p_sms", 2, "count", core::SourceKind::collective_measurement,
      "SMs a send to one peer holds: NCCL's p2p channels per peer, 2 in its log (NVIDIA/nccl issue #1189: 8 p2p "
      "channels, 2 p2p channels per peer)"));
  return n;
}

}  // namespace k3::train
