// Flat all-to-all of 1 GiB per rank on a rail-optimised fat tree (8 GPUs per node, one NIC per GPU):
// k3sim's flow model against SimGrid (CM02, pure max-min) on the same links, routes and flows, in one run.
// Counters: flows, k3sim_solves, max_rel_diff (largest relative difference of any flow's completion time),
// simgrid_platform_s (building SimGrid's hosts/links/routes, not in the timed part).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/net/network_factory.hpp"
#include "oracle/fabrics.hpp"
#include "oracle/simgrid_oracle.hpp"

using namespace k3;

namespace {

struct Case {
  topo::Topology topology;
  std::vector<std::pair<topo::GpuId, topo::GpuId>> pairs;
  std::uint64_t bytes_per_flow;
};

Case make_case(int nodes) {
  const int spines = std::max(1, nodes / 4);
  Case c{oracle::rail_fat_tree(nodes, 8, spines), {}, 0};
  const auto n = static_cast<topo::GpuId>(c.topology.gpu_count());
  c.bytes_per_flow = (std::uint64_t{1} << 30) / n;  // 1 GiB per rank, n-1 peers (the self share stays put)
  for (topo::GpuId s = 0; s < n; ++s)
    for (topo::GpuId d = 0; d < n; ++d)
      if (s != d) c.pairs.emplace_back(s, d);
  return c;
}

const Case& cached_case(int nodes) {
  static Case c64 = make_case(8), c256 = make_case(32);
  return nodes == 8 ? c64 : c256;
}

std::vector<double> run_k3sim(const Case& c, std::uint64_t* solves) {
  engine::Simulator sim;
  net::FlowNetwork network(sim, net::make_net_links(c.topology));
  sim.add_model(network);
  std::vector<double> done(c.pairs.size());
  for (std::size_t i = 0; i < c.pairs.size(); ++i)
    network.start_flow(c.topology.route(c.pairs[i].first, c.pairs[i].second), static_cast<double>(c.bytes_per_flow),
                       [&done, i](net::FlowId, core::SimTime t) { done[i] = t.seconds(); });
  sim.run();
  if (solves) *solves = network.solves();
  return done;
}

oracle::OracleRun run_simgrid(const Case& c) {
  std::vector<oracle::OracleLink> links;
  for (const auto& l : c.topology.links()) links.push_back({l.capacity_bytes_per_s, l.latency_s});
  std::vector<oracle::OracleFlow> flows;
  for (const auto& [s, d] : c.pairs) {
    const auto r = c.topology.route(s, d);
    flows.push_back({s, d, std::vector<std::uint32_t>(r.begin(), r.end()), c.bytes_per_flow});
  }
  return oracle::simgrid_run(links, flows);
}

void BM_AllToAll_k3sim(benchmark::State& state) {
  const Case& c = cached_case(static_cast<int>(state.range(0)));
  std::uint64_t solves = 0;
  std::vector<double> done;
  for (auto _ : state) done = run_k3sim(c, &solves);
  state.counters["flows"] = static_cast<double>(c.pairs.size());
  state.counters["k3sim_solves"] = static_cast<double>(solves);
  state.counters["completion_s"] = *std::max_element(done.begin(), done.end());
}

void BM_AllToAll_SimGrid(benchmark::State& state) {
  const Case& c = cached_case(static_cast<int>(state.range(0)));
  const auto ours = run_k3sim(c, nullptr);
  double platform_s = 0, max_rel = 0, last = 0;
  for (auto _ : state) {
    const auto ref = run_simgrid(c);
    state.SetIterationTime(ref.simulate_wall_s);
    platform_s = ref.platform_wall_s;
    max_rel = 0;
    for (std::size_t i = 0; i < ours.size(); ++i)
      max_rel = std::max(max_rel, std::abs(ours[i] - ref.completion_s[i]) / ref.completion_s[i]);
    last = *std::max_element(ref.completion_s.begin(), ref.completion_s.end());
  }
  state.counters["flows"] = static_cast<double>(c.pairs.size());
  state.counters["simgrid_platform_s"] = platform_s;
  state.counters["max_rel_diff"] = max_rel;
  state.counters["completion_s"] = last;
}

}  // namespace

// Arg = nodes of 8 GPUs: 8 -> 64 GPUs (4,032 flows), 32 -> 256 GPUs (65,280 flows).
BENCHMARK(BM_AllToAll_k3sim)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllToAll_SimGrid)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(1);

BENCHMARK_MAIN();
