#include <gtest/gtest.h>

#include "tests/topologies/topo_test_util.hpp"
#include "topologies/analysis.hpp"

namespace k3::topo {
namespace {

using test::small_cluster;

double cut_capacity(const Topology& t, const Bisection& b) {
  double sum = 0;
  for (LinkId id : b.cut_links) sum += t.links()[id].capacity_bytes_per_s;
  return sum;
}

TEST(Bisection, NonBlockingTwoTierEqualsHalfTheGpusTimesNicBandwidth) {
  // 8 single-GPU nodes, radix 4: 4 leaves x 2 NICs, 2 spines. Half = 4 GPUs x 50 GB/s = 200 GB/s.
  const Topology t = build_cluster(small_cluster(FabricKind::fat_tree, 8, 1, 4));
  const auto b = bisection(t);
  EXPECT_DOUBLE_EQ(b.bytes_per_s, 4 * 50e9);
  EXPECT_DOUBLE_EQ(cut_capacity(t, b), b.bytes_per_s);
}

TEST(Bisection, OversubscribedLeafTierDividesByK) {
  // 1:2 at the leaves: each leaf keeps 2 NIC ports and 1 uplink; the first half's 2 leaves have 2 uplinks
  // of 50 GB/s = 100 GB/s = 200 GB/s / 2. The cut is exactly those two leaf -> spine links.
  const Topology t = build_cluster(small_cluster(FabricKind::fat_tree, 8, 1, 4, {2}));
  const auto b = bisection(t);
  EXPECT_DOUBLE_EQ(b.bytes_per_s, 100e9);
  ASSERT_EQ(b.cut_links.size(), 2u);
  for (LinkId id : b.cut_links) EXPECT_EQ(t.links()[id].link_class, LinkClass::leaf_spine);
}

TEST(Bisection, ThreeTierFallsByKAtEitherTier) {
  // 16 nodes x 4 GPUs, radix 8: 4 pods of 16 NICs. Non-blocking: 32 GPUs x 50 GB/s = 1.6 TB/s.
  EXPECT_DOUBLE_EQ(bisection(build_cluster(small_cluster(FabricKind::fat_tree3, 16, 4, 8))).bytes_per_s, 1600e9);
  // 1:2 at aggregation -> core: each aggregation switch keeps 2 of 4 core uplinks -> 800 GB/s.
  const Topology agg = build_cluster(small_cluster(FabricKind::fat_tree3, 16, 4, 8, {1, 2}));
  const auto b = bisection(agg);
  EXPECT_DOUBLE_EQ(b.bytes_per_s, 800e9);
  for (LinkId id : b.cut_links) EXPECT_EQ(agg.links()[id].link_class, LinkClass::spine_core);
  // 1:2 at the leaves: 2 aggregation switches per pod -> 800 GB/s as well.
  EXPECT_DOUBLE_EQ(bisection(build_cluster(small_cluster(FabricKind::fat_tree3, 16, 4, 8, {2, 1}))).bytes_per_s, 800e9);
}

TEST(Bisection, LargePresetsMatchHalfTheGpusTimesNicBandwidth) {
  // DeepSeek-V3 cluster: 1024 GPUs x 50 GB/s = 51.2 TB/s.
  const Topology dsv3 = load_topology("h800-dsv3-2048");
  EXPECT_DOUBLE_EQ(bisection(dsv3).bytes_per_s, 1024 * 50e9);
  // With 1:2 leaves every plane's leaves keep 16 of 32 uplinks -> 25.6 TB/s.
  auto spec = load_cluster_spec("h800-dsv3-2048");
  spec.fabric.oversubscription = {2};
  EXPECT_DOUBLE_EQ(bisection(build_cluster(spec)).bytes_per_s, 512 * 50e9);
  // Selene on a three-tier tree of 40-port switches: 1536 GPUs x 25 GB/s = 38.4 TB/s.
  EXPECT_DOUBLE_EQ(bisection(load_topology("a100-selene")).bytes_per_s, 1536 * 25e9);
}

TEST(Summary, CountsAndInjectionOfTheDeepSeekCluster) {
  const auto s = summarize(load_topology("h800-dsv3-2048"));
  EXPECT_EQ(s.gpus, 2048u);
  // Per plane: 256 NICs -> 8 leaves, 32 spines; 8 planes -> 320 switches.
  EXPECT_EQ(s.switches, 320u);
  const auto inj = [&](LinkClass c) { return s.injection_bytes_per_s[static_cast<std::size_t>(c)]; };
  EXPECT_DOUBLE_EQ(inj(LinkClass::nvlink), 200e9);  // line rate; 0.80 of it achievable
  EXPECT_DOUBLE_EQ(inj(LinkClass::pcie), 64e9);
  EXPECT_DOUBLE_EQ(inj(LinkClass::nic), 50e9);
  // 64 leaves x 32 uplinks x 50 GB/s / 2048 GPUs = 50 GB/s.
  EXPECT_DOUBLE_EQ(inj(LinkClass::leaf_spine), 50e9);
  EXPECT_DOUBLE_EQ(inj(LinkClass::spine_core), 0.0);
  // Cross-rail between nodes on different leaves: pcie, nic, up, down, nic, pcie, nvlink x2 = 8.
  EXPECT_EQ(s.diameter_hops, 8);
}

}  // namespace
}  // namespace k3::topo
