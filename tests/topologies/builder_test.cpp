#include <gtest/gtest.h>

#include <thread>

#include "topologies/load.hpp"
#include "topologies/topology.hpp"

namespace k3::topo {
namespace {

GpuType h800() { return builtin_gpu_types().at("H800-SXM"); }

// Two nodes of two GPUs behind an NVSwitch each; one NIC per GPU on a single leaf.
Topology two_by_two() {
  TopologyBuilder b("2x2", h800());
  std::vector<VertexId> gpus;
  VertexId leaf = 0;
  for (int n = 0; n < 2; ++n) {
    const VertexId g0 = b.add_gpu(n), g1 = b.add_gpu(n);
    const VertexId nvs = b.add_vertex(VertexKind::nvswitch, n);
    b.add_duplex(g0, nvs, 100e9, 1e-6, LinkClass::nvlink);
    b.add_duplex(g1, nvs, 100e9, 1e-6, LinkClass::nvlink);
    gpus.insert(gpus.end(), {g0, g1});
  }
  leaf = b.add_vertex(VertexKind::leaf);
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 2; ++i) {
      const VertexId nic = b.add_vertex(VertexKind::nic, n);
      b.add_duplex(gpus[static_cast<std::size_t>(2 * n + i)], nic, 64e9, 0, LinkClass::pcie);
      b.add_duplex(nic, leaf, 50e9, 0, LinkClass::nic);
    }
  }
  return std::move(b).build();
}

TEST(TopologyBuilder, NumbersGpusNodeMajorAndCountsLinks) {
  const Topology t = two_by_two();
  EXPECT_EQ(t.gpu_count(), 4u);
  EXPECT_EQ(t.gpus_per_node(), 2);
  EXPECT_EQ(t.node_count(), 2u);
  EXPECT_EQ(t.node_of(3), 1);
  EXPECT_EQ(t.local_index(3), 1);
  EXPECT_EQ(t.gpu_at(1, 0), 2u);
  // 4 NVLink + 4 PCIe + 4 NIC cables, each two directed links.
  EXPECT_EQ(t.links().size(), 24u);
  EXPECT_EQ(t.vertex(t.gpu_vertex(2)).node, 1);
  EXPECT_EQ(to_string(LinkClass::leaf_spine), "leaf_spine");
}

TEST(TopologyBuilder, RoutesIntraNodeOverNvswitchAndInterNodeOverTheLeaf) {
  const Topology t = two_by_two();
  // GPU0 -> NVSwitch -> GPU1: two NVLink links.
  const auto intra = t.route(0, 1);
  ASSERT_EQ(intra.size(), 2u);
  for (LinkId id : intra) EXPECT_EQ(t.links()[id].link_class, LinkClass::nvlink);
  // GPU0 -> NIC -> leaf -> NIC -> GPU3 (no rail alignment asked for): pcie, nic, nic, pcie.
  const auto inter = t.route(0, 3);
  ASSERT_EQ(inter.size(), 4u);
  EXPECT_EQ(t.links()[inter[0]].from, t.gpu_vertex(0));
  EXPECT_EQ(t.links()[inter[3]].to, t.gpu_vertex(3));
  EXPECT_EQ(t.links()[inter[1]].link_class, LinkClass::nic);
  EXPECT_TRUE(t.route(2, 2).empty());
}

TEST(TopologyBuilder, RouteCacheReturnsTheSameStorageAndIsThreadSafe) {
  const Topology t = two_by_two();
  const auto first = t.route(0, 3, 7);
  EXPECT_EQ(t.route(0, 3, 7).data(), first.data());
  EXPECT_EQ(t.cached_route_count(), 1u);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&t] {
      for (GpuId a = 0; a < 4; ++a)
        for (GpuId b = 0; b < 4; ++b) (void)t.route(a, b, 1);
    });
  }
  for (auto& th : threads) th.join();
  // 16 ordered pairs with key 1 plus the one with key 7.
  EXPECT_EQ(t.cached_route_count(), 17u);
  const Topology copy = t;  // a copy starts with an empty cache and routes identically
  EXPECT_EQ(copy.cached_route_count(), 0u);
  EXPECT_TRUE(std::ranges::equal(copy.route(0, 3, 7), first));
}

TEST(TopologyBuilder, HandBuiltGraphWithoutNicsRoutesOverTheShortestPath) {
  // Three single-GPU nodes on a line: g0 - g1 - g2 via direct links; g0 -> g2 must transit g1.
  TopologyBuilder b("line", h800());
  const VertexId g0 = b.add_gpu(0), g1 = b.add_gpu(1), g2 = b.add_gpu(2);
  const LinkId a = b.add_duplex(g0, g1, 10e9, 1e-6, LinkClass::nvlink);
  const LinkId c = b.add_duplex(g1, g2, 10e9, 1e-6, LinkClass::nvlink);
  const Topology t = std::move(b).build();
  const auto r = t.route(0, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], a);
  EXPECT_EQ(r[1], c);
  EXPECT_EQ(t.route(2, 0)[0], c + 1);  // the reverse direction of each cable is the next LinkId
}

TEST(TopologyBuilder, RejectsDisconnectedOrUnevenClusters) {
  TopologyBuilder b("split", h800());
  b.add_gpu(0);
  b.add_gpu(1);
  EXPECT_THROW(std::move(b).build(), std::invalid_argument);
  TopologyBuilder uneven("uneven", h800());
  const VertexId x = uneven.add_gpu(0), y = uneven.add_gpu(0), z = uneven.add_gpu(1);
  uneven.add_duplex(x, y, 1e9, 0, LinkClass::nvlink);
  uneven.add_duplex(y, z, 1e9, 0, LinkClass::nvlink);
  EXPECT_THROW(std::move(uneven).build(), std::invalid_argument);
  TopologyBuilder neg("neg", h800());
  const VertexId p = neg.add_gpu(0), q = neg.add_gpu(1);
  EXPECT_THROW(neg.add_duplex(p, q, -1.0, 0, LinkClass::nvlink), std::invalid_argument);
}

}  // namespace
}  // namespace k3::topo
