// k3sim's flow model against SimGrid (CM02, crosstraffic 0, TCP-gamma 0: pure max-min) on the same links,
// routes and flows: every flow's completion time must agree to 1e-6 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/rng.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/net/network_factory.hpp"
#include "oracle/fabrics.hpp"
#include "oracle/simgrid_oracle.hpp"

using namespace k3;

namespace {

struct Pair {
  topo::GpuId src, dst;
  std::uint64_t bytes;
};

// All-to-all among `gpus` with integer sizes drawn in [lo, hi] bytes (SimGrid takes whole bytes).
std::vector<Pair> random_alltoall(const std::vector<topo::GpuId>& gpus, std::uint64_t lo, std::uint64_t hi,
                                  std::uint64_t seed) {
  core::Rng rng(seed);
  std::vector<Pair> pairs;
  for (auto s : gpus)
    for (auto d : gpus)
      if (s != d) pairs.push_back({s, d, lo + rng.below(hi - lo + 1)});
  return pairs;
}

std::vector<double> k3sim_completions(const topo::Topology& topology, const std::vector<Pair>& pairs) {
  engine::Simulator sim;
  net::FlowNetwork network(sim, net::make_net_links(topology));
  sim.add_model(network);
  std::vector<double> done(pairs.size(), -1.0);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    network.start_flow(topology.route(pairs[i].src, pairs[i].dst), static_cast<double>(pairs[i].bytes),
                       [&done, i](net::FlowId, core::SimTime t) { done[i] = t.seconds(); });
  }
  sim.run();
  return done;
}

void expect_same_as_simgrid(const topo::Topology& topology, const std::vector<Pair>& pairs) {
  std::vector<oracle::OracleLink> links;
  for (const auto& l : topology.links()) links.push_back({l.capacity_bytes_per_s, l.latency_s});
  std::vector<oracle::OracleFlow> flows;
  for (const auto& p : pairs) {
    const auto route = topology.route(p.src, p.dst);
    flows.push_back({p.src, p.dst, std::vector<std::uint32_t>(route.begin(), route.end()), p.bytes});
  }
  const auto reference = oracle::simgrid_run(links, flows).completion_s;
  const auto ours = k3sim_completions(topology, pairs);
  ASSERT_EQ(reference.size(), ours.size());
  double worst = 0;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    const double rel = std::abs(ours[i] - reference[i]) / reference[i];
    worst = std::max(worst, rel);
    EXPECT_LE(rel, 1e-6) << "flow " << i << " " << pairs[i].src << "->" << pairs[i].dst << ": k3sim " << ours[i]
                         << " s, SimGrid " << reference[i] << " s";
  }
  // The flows must not all end together, or the comparison would test one number.
  const auto [lo, hi] = std::minmax_element(reference.begin(), reference.end());
  EXPECT_GT(*hi, 1.5 * *lo);
  ::testing::Test::RecordProperty("worst_relative_difference", std::to_string(worst));
}

std::vector<topo::GpuId> first_gpus(std::uint32_t n) {
  std::vector<topo::GpuId> g(n);
  for (std::uint32_t i = 0; i < n; ++i) g[i] = i;
  return g;
}

}  // namespace

TEST(SimGridOracle, EightGpuNvswitchAllToAll) {
  const auto topology = oracle::nvswitch_node(8);
  expect_same_as_simgrid(topology, random_alltoall(first_gpus(8), 1 << 20, 64 << 20, 11));
}

TEST(SimGridOracle, SixtyFourGpuAllToAllOnARailFatTree) {
  const auto topology = oracle::rail_fat_tree(8, 8, 4);
  expect_same_as_simgrid(topology, random_alltoall(first_gpus(64), 1 << 20, 32 << 20, 12));
}

TEST(SimGridOracle, TwoJobsContendOnAnOversubscribedSpine) {
  // Job A on GPUs {0,1,4,5}, job B on {2,3,6,7}; the leaves are 2:1 oversubscribed towards the spine.
  const auto topology = oracle::two_leaf_oversubscribed(4, 2.0);
  auto pairs = random_alltoall({0, 1, 4, 5}, 64 << 20, 64 << 20, 13);
  const auto job_b = random_alltoall({2, 3, 6, 7}, 4 << 20, 48 << 20, 14);
  pairs.insert(pairs.end(), job_b.begin(), job_b.end());
  expect_same_as_simgrid(topology, pairs);
}

TEST(SimGridOracle, SameInputGivesIdenticalTimes) {
  const auto topology = oracle::two_leaf_oversubscribed(4, 2.0);
  const auto pairs = random_alltoall(first_gpus(8), 1 << 20, 32 << 20, 15);
  EXPECT_EQ(k3sim_completions(topology, pairs), k3sim_completions(topology, pairs));
}
