#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "tests/topologies/topo_test_util.hpp"
#include "topologies/analysis.hpp"
#include "topologies/route_memo.hpp"

namespace k3::topo {
namespace {

using test::small_cluster;

// Checks one route: chained links from a's vertex to b's, no vertex twice; returns the vertices visited.
std::vector<VertexId> check_route(const Topology& t, GpuId a, GpuId b, std::span<const LinkId> r) {
  std::vector<VertexId> seen{t.gpu_vertex(a)};
  EXPECT_FALSE(r.empty()) << a << "->" << b;
  for (LinkId id : r) {
    EXPECT_EQ(t.links()[id].from, seen.back()) << a << "->" << b;
    seen.push_back(t.links()[id].to);
  }
  EXPECT_EQ(seen.back(), t.gpu_vertex(b));
  std::set<VertexId> unique(seen.begin(), seen.end());
  EXPECT_EQ(unique.size(), seen.size()) << "loop in " << a << "->" << b;
  return seen;
}

void check_all_pairs(const Topology& t) {
  std::vector<LinkId> path;
  for (GpuId a = 0; a < t.gpu_count(); ++a) {
    for (GpuId b = 0; b < t.gpu_count(); ++b) {
      if (a == b) continue;
      t.route_into(a, b, a * 31 + b, path);
      const auto seen = check_route(t, a, b, path);
      if (t.node_of(a) == t.node_of(b)) {
        for (VertexId v : seen) ASSERT_EQ(t.vertex(v).node, t.node_of(a)) << "intra-node route left the node";
      }
    }
  }
}

TEST(Routing, EveryRouteIsLoopFreeAndIntraNodeRoutesStayInside) {
  check_all_pairs(build_cluster(small_cluster(FabricKind::rail_fat_tree, 16, 8, 16)));
  check_all_pairs(build_cluster(small_cluster(FabricKind::multi_plane_fat_tree, 8, 4, 4)));
  check_all_pairs(build_cluster(small_cluster(FabricKind::fat_tree3, 16, 4, 8)));
  check_all_pairs(build_cluster(small_cluster(FabricKind::single_switch, 4, 2, 8)));
  check_all_pairs(build_cluster(small_cluster(FabricKind::fat_tree, 8, 1, 4)));
}

TEST(Routing, RailAlignedRouteCrossesOnTheSourceRailThenNvlink) {
  const Topology t = build_cluster(small_cluster(FabricKind::multi_plane_fat_tree, 4, 4, 4));
  // GPU 1 (node 0, rail 1) -> GPU 14 (node 3, rail 2): the network leg ends at node 3's rail-1 GPU (13),
  // then NVLink 13 -> NVSwitch -> 14.
  const auto r = t.route(1, 14);
  const auto seen = check_route(t, 1, 14, r);
  EXPECT_NE(std::find(seen.begin(), seen.end(), t.gpu_vertex(13)), seen.end());
  EXPECT_EQ(t.links()[r.back()].link_class, LinkClass::nvlink);
  EXPECT_EQ(t.links()[r.front()].link_class, LinkClass::pcie);
  // radix 4: 2 nodes per leaf; nodes 0 and 3 sit on different leaves of plane 1 -> via a spine:
  // pcie, nic, leaf_spine, leaf_spine, nic, pcie, nvlink, nvlink = 8 links.
  EXPECT_EQ(r.size(), 8u);
}

TEST(Routing, EcmpSpreadsAnAllToAllEvenlyOverSpineLinks) {
  // Rail fat tree: 16 nodes x 8 GPUs, radix 16 -> 16 leaves of 8 NICs, each with 8 uplinks to 8 spines.
  // All-to-all, 128 x 127 flows. Per leaf (rail r, group g): its 8 source GPUs send rail-aligned to the 8
  // nodes of the other group, 8 destination GPUs each = 512 flows up, over 8 uplinks. D-mod-k on the
  // destination NIC's port gives each uplink exactly 64; the same holds for the spine -> leaf downlinks.
  const Topology t = build_cluster(small_cluster(FabricKind::rail_fat_tree, 16, 8, 16));
  std::map<LinkId, int> load;
  std::vector<LinkId> path;
  for (GpuId a = 0; a < t.gpu_count(); ++a) {
    for (GpuId b = 0; b < t.gpu_count(); ++b) {
      if (a == b) continue;
      t.route_into(a, b, 0, path);
      for (LinkId id : path) {
        if (t.links()[id].link_class == LinkClass::leaf_spine) ++load[id];
      }
    }
  }
  std::size_t spine_links = 0;
  for (const auto& l : t.links()) spine_links += l.link_class == LinkClass::leaf_spine ? 1 : 0;
  ASSERT_EQ(load.size(), spine_links);  // every leaf-spine link carries traffic: 16 x 8 x 2 = 256
  EXPECT_EQ(spine_links, 256u);
  int lo = 1 << 30, hi = 0;
  for (const auto& [id, n] : load) {
    lo = std::min(lo, n);
    hi = std::max(hi, n);
  }
  EXPECT_EQ(hi, 64);
  EXPECT_LE(static_cast<double>(hi) / lo, 1.1);
}

TEST(Routing, FlowKeysSpreadOnePairOverSpinesDeterministically) {
  const Topology t = build_cluster(small_cluster(FabricKind::fat_tree, 8, 1, 4));
  // radix 4: leaves of 2 NICs, 2 spines. GPU 0 (leaf 0) -> GPU 7 (leaf 3) has two equal-cost paths.
  std::set<LinkId> uplinks;
  for (std::uint64_t key = 1; key <= 32; ++key) uplinks.insert(t.route(0, 7, key)[2]);
  EXPECT_EQ(uplinks.size(), 2u);
  EXPECT_TRUE(std::ranges::equal(t.route(0, 7, 5), build_cluster(small_cluster(FabricKind::fat_tree, 8, 1, 4)).route(0, 7, 5)));
}

TEST(Routing, DiameterMatchesTheLongestRoute) {
  for (const auto& spec : {small_cluster(FabricKind::fat_tree3, 16, 4, 8), small_cluster(FabricKind::rail_fat_tree, 16, 8, 16),
                           small_cluster(FabricKind::multi_plane_fat_tree, 8, 4, 4)}) {
    const Topology t = build_cluster(spec);
    std::size_t longest = 0;
    std::vector<LinkId> path;
    for (GpuId a = 0; a < t.gpu_count(); ++a) {
      for (GpuId b = 0; b < t.gpu_count(); ++b) {
        t.route_into(a, b, 0, path);
        longest = std::max(longest, path.size());
      }
    }
    EXPECT_EQ(static_cast<std::size_t>(diameter_hops(t)), longest);
  }
  // Three tiers across pods: pcie, nic, leaf->agg, agg->core, core->agg, agg->leaf, nic, pcie = 8.
  EXPECT_EQ(diameter_hops(build_cluster(small_cluster(FabricKind::fat_tree3, 16, 4, 8))), 8);
}

TEST(RouteMemo, GivesTheTopologysRoutesThroughItsGrowth) {
  // 128 GPUs: 16,256 ordered pairs, so the memo (256 slots at first, at most half full) doubles six times. Each
  // lookup, first or repeated, is the Topology's own cached span.
  const auto t = build_cluster(small_cluster(FabricKind::rail_fat_tree, 16, 8, 16));
  RouteMemo memo(t);
  for (int round = 0; round < 2; ++round) {
    for (GpuId a = 0; a < t.gpu_count(); ++a) {
      for (GpuId b = 0; b < t.gpu_count(); ++b) {
        const auto want = t.route(a, b);
        const auto got = memo.route(a, b);
        ASSERT_EQ(got.data(), want.data()) << a << "->" << b;
        ASSERT_EQ(got.size(), want.size()) << a << "->" << b;
      }
    }
  }
}

}  // namespace
}  // namespace k3::topo
