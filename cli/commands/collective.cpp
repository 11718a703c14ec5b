// `k3sim collective`: one collective alone on a topology, swept over sizes like nccl-tests.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "core/quantity.hpp"
#include "core/registry.hpp"
#include "sim/cost/measured_links.hpp"
#include "sim/net/network_factory.hpp"
#include "topologies/load.hpp"

namespace k3::cli {

namespace {

struct CollectiveOptions {
  std::string topology;
  std::string op;
  std::string algorithm;
  std::string network = "flow";
  std::string bytes;
  int ranks = 0;
  bool json = false;
};

net::CollectiveAlgorithm default_algorithm(net::CollectiveOp op) {
  return op == net::CollectiveOp::alltoall ? net::CollectiveAlgorithm::flat : net::CollectiveAlgorithm::ring;
}

void run(const CollectiveOptions& o) {
  const auto op = net::parse_collective_op(o.op);
  if (!op || *op == net::CollectiveOp::sendrecv)
    throw core::InputError({"--op", "", 0}, "unknown operation '" + o.op + "'",
                           "allreduce, reducescatter, allgather, alltoall");
  net::CollectiveAlgorithm algorithm = default_algorithm(*op);
  if (!o.algorithm.empty()) {
    const auto a = net::parse_collective_algorithm(o.algorithm);
    if (!a) throw core::InputError({"--algorithm", "", 0}, "unknown algorithm '" + o.algorithm + "'",
                                   core::entry_names(net::collective_algorithms()));
    algorithm = *a;
  }
  const net::NetworkModelEntry& network = net::network_model(o.network, {"--network", "", 0});
  const auto sizes = core::parse_quantity_list(o.bytes);
  if (!sizes) throw core::InputError({"--bytes", "", 0}, "cannot read '" + o.bytes + "'", "e.g. 1MiB:4GiB, 1M,8M, 4096");
  const topo::Topology topology = topo::load_topology(o.topology);
  const int available = static_cast<int>(topology.gpu_count());
  const int ranks = o.ranks == 0 ? available : o.ranks;
  if (ranks < 1 || ranks > available)
    throw core::InputError({"--ranks", "", 0}, fmt::format("{} ranks on a {}-GPU topology", ranks, available),
                           fmt::format("1..{}", available));

  net::CollectiveSpec spec;
  spec.op = *op;
  spec.algorithm = algorithm;
  spec.ranks.resize(static_cast<std::size_t>(ranks));
  std::iota(spec.ranks.begin(), spec.ranks.end(), topo::GpuId{0});

  // Each link class carries the share of its line rate that NCCL reached on the GPU itself (its measured kernel
  // tables, as `run` takes it), else the topology's measurements of the link technology (its `achievable:`); DeepEP's
  // SM copies at the rate DeepEP reached on the GPU itself at its default 20 SMs.
  core::Provenance links;
  net::LinkEfficiency efficiency =
      net::register_link_figures(topology, links, cost::shipped_nccl_link_rates(topology));
  if (net::uses_sm_copies(algorithm)) {
    efficiency.sm_copy_nvlink = net::register_deepep_copy_rate(
        links, cost::shipped_deepep_copy_rate(topology, cost::kDeepepDefaultSms));
  }
  nlohmann::json used = nlohmann::json::array();
  for (const auto& e : links.entries()) {
    if (e.id.ends_with(".efficiency") || e.id.ends_with("_fraction"))
      used.push_back({{"id", e.id}, {"value", e.value}, {"kind", core::to_string(e.kind)}, {"source", e.source}});
  }

  nlohmann::json rows = nlohmann::json::array();
  if (!o.json) {
    fmt::print("# k3sim collective: {} {} on {} ({} ranks, {} network)\n", net::to_string(*op),
               net::to_string(algorithm), topology.name(), ranks, network.name);
    for (const auto& u : used)
      fmt::print("# {} = {:.3f} of line rate ({}): {}\n", u.at("id").get<std::string>(), u.at("value").get<double>(),
                 u.at("kind").get<std::string>(), u.at("source").get<std::string>());
    fmt::print("# {:>14} {:>14} {:>12} {:>12} {:>8}\n", "size(B)", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "flows");
  }
  for (double bytes : *sizes) {
    spec.bytes = bytes;
    const net::CollectiveResult r = net::simulate_collective(topology, spec, network, efficiency);
    const double algbw_gbps = r.algbw_bytes_per_s / core::kGB, busbw_gbps = r.busbw_bytes_per_s / core::kGB;
    if (o.json) {
      rows.push_back({{"bytes", r.bytes}, {"time_s", r.time_s}, {"algbw_gbps", algbw_gbps},
                      {"busbw_gbps", busbw_gbps}, {"flows", r.flows}});
    } else {
      fmt::print("  {:>14.0f} {:>14.2f} {:>12.2f} {:>12.2f} {:>8}\n", r.bytes, r.time_s * 1e6, algbw_gbps, busbw_gbps,
                 r.flows);
    }
  }
  if (o.json) {
    nlohmann::json out{{"topology", topology.name()}, {"op", net::to_string(*op)},
                       {"algorithm", net::to_string(algorithm)}, {"network", network.name},
                       {"ranks", ranks}, {"link_efficiency", used}, {"rows", rows}};
    fmt::print("{}\n", out.dump(2));
  }
}

}  // namespace

void attach_collective(CLI::App& command, int& exit_status) {
  auto o = std::make_shared<CollectiveOptions>();
  auto* cmd = &command;
  cmd->add_option("--topology", o->topology, "Topology preset name or YAML file")->required();
  cmd->add_option("--op", o->op, "allreduce, reducescatter, allgather or alltoall")->required();
  cmd->add_option("--bytes", o->bytes, "Sizes: 1MiB:4GiB (doubling), a:b:xF, a:b:+S or a,b,c")->required();
  cmd->add_option("--ranks", o->ranks, "Number of GPUs, the first N of the topology (default: all)");
  cmd->add_option("--algorithm", o->algorithm,
                  "ring or hierarchical (all-reduce), ring (reduce-scatter, all-gather), flat, deepep or "
                  "deepep-ll (all-to-all); default ring, flat for all-to-all (k3sim list collectives)");
  cmd->add_option("--network", o->network,
                  "Network model: " + core::entry_names(net::network_models(), " or ") + " (k3sim list networks)");
  cmd->add_flag("--json", o->json, "Print JSON rows: bytes, time_s, algbw_gbps, busbw_gbps");
  cmd->callback([o, &exit_status] {
    run(*o);
    exit_status = 0;
  });
}

}  // namespace k3::cli
