// Switch counts of the generated fabrics against "Insights into DeepSeek-V3" (ISCA'25) Table 3.
#include <gtest/gtest.h>

#include "tests/topologies/topo_test_util.hpp"
#include "topologies/analysis.hpp"

namespace k3::topo {
namespace {

using test::small_cluster;

std::size_t count(const TopologySummary& s, VertexKind k) { return s.vertices_by_kind[static_cast<std::size_t>(k)]; }

std::array<std::size_t, kVertexKindCount> kinds(const Topology& t) {
  std::array<std::size_t, kVertexKindCount> out{};
  for (VertexId v = 0; v < t.vertex_count(); ++v) ++out[static_cast<std::size_t>(t.vertex(v).kind)];
  return out;
}

TEST(Fabric, TwoTierFatTreeOf64PortSwitchesHolds2048EndpointsOn96Switches) {
  // Leaves take 32 NICs and have 32 uplinks: 2048 / 32 = 64 leaves, one spine per uplink = 32 spines.
  const Topology t = build_cluster(small_cluster(FabricKind::fat_tree, 256, 8, 64));
  const auto k = kinds(t);
  EXPECT_EQ(k[static_cast<std::size_t>(VertexKind::leaf)], 64u);
  EXPECT_EQ(k[static_cast<std::size_t>(VertexKind::spine)], 32u);
  EXPECT_EQ(t.gpu_count(), 2048u);
  // One more node needs a 65th leaf, and a spine has only 64 ports.
  EXPECT_FALSE(fabric_problem(small_cluster(FabricKind::fat_tree, 257, 8, 64)).problem.empty());
}

TEST(Fabric, EightPlanesOf2048EndpointsUse768Switches) {
  // 2048 nodes x 8 GPUs: plane r holds NIC r of every node = 2048 endpoints = 96 switches, times 8 planes.
  const Topology t = load_topology("h800-dsv3-2048", {"nodes=2048"});
  const auto k = kinds(t);
  EXPECT_EQ(t.gpu_count(), 16384u);
  EXPECT_EQ(k[static_cast<std::size_t>(VertexKind::leaf)] + k[static_cast<std::size_t>(VertexKind::spine)], 768u);
  EXPECT_TRUE(t.rail_aligned());
  // Planes are disjoint: leaf of rail 0 and leaf of rail 1 share no switch path.
  EXPECT_EQ(t.switch_distance(t.leaf_of(0), t.leaf_of(1)), 0xFF);
  EXPECT_EQ(t.switch_distance(t.leaf_of(0), t.leaf_of(t.gpu_at(2047, 0))), 2);
}

TEST(Fabric, ThreeTierFatTreeOf64PortSwitchesHolds65536EndpointsOn5120Switches) {
  // k-ary fat tree with k = 64: k^3/4 = 65,536 hosts; k^2/2 = 2048 edge, 2048 aggregation, k^2/4 = 1024 core.
  const Topology t = build_cluster(small_cluster(FabricKind::fat_tree3, 8192, 8, 64));
  const auto k = kinds(t);
  EXPECT_EQ(t.gpu_count(), 65536u);
  EXPECT_EQ(k[static_cast<std::size_t>(VertexKind::leaf)], 2048u);
  EXPECT_EQ(k[static_cast<std::size_t>(VertexKind::spine)], 2048u);
  EXPECT_EQ(k[static_cast<std::size_t>(VertexKind::core)], 1024u);
  EXPECT_FALSE(fabric_problem(small_cluster(FabricKind::fat_tree3, 8193, 8, 64)).problem.empty());
}

TEST(Fabric, RailFatTreeGivesEachRailItsOwnLeavesAndSharesSpines) {
  // 16 nodes x 8 GPUs, radix 16: a leaf takes 8 NICs of one rail -> 2 leaves per rail, 16 leaves, 8 spines.
  const auto s = summarize(build_cluster(small_cluster(FabricKind::rail_fat_tree, 16, 8, 16)));
  EXPECT_EQ(count(s, VertexKind::leaf), 16u);
  EXPECT_EQ(count(s, VertexKind::spine), 8u);
  EXPECT_EQ(count(s, VertexKind::nvswitch), 16u);
  EXPECT_EQ(count(s, VertexKind::nic), 128u);
  EXPECT_EQ(s.switches, 24u);
}

TEST(Fabric, Nvl72RackIsOneNvlinkDomain) {
  const Topology t = load_topology("gb200-nvl72", {"nodes=2"});
  EXPECT_EQ(t.gpus_per_node(), 72);
  EXPECT_EQ(t.gpu_count(), 144u);
  // GPU 0 to GPU 71 stays on NVLink: two hops through the rack's NVSwitch.
  const auto r = t.route(0, 71);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(t.links()[r[0]].capacity_bytes_per_s, 900e9);
}

}  // namespace
}  // namespace k3::topo
