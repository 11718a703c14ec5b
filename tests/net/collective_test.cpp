// Collectives expanded into flows, timed on hand-built fabrics (oracle/fabrics.hpp); each expected
// time is derived in the comment above its assertion.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "sim/net/collectives/collective_engine.hpp"
#include "sim/net/network_factory.hpp"
#include "oracle/fabrics.hpp"

using namespace k3;
using net::CollectiveAlgorithm;
using net::CollectiveOp;
using net::CollectiveSpec;

namespace {
CollectiveSpec spec_of(CollectiveOp op, CollectiveAlgorithm a, std::uint32_t ranks, double bytes) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  for (std::uint32_t g = 0; g < ranks; ++g) s.ranks.push_back(g);
  s.bytes = bytes;
  return s;
}
constexpr double kPs = 1e-12;
}  // namespace

TEST(Collective, RingAllReduceOnAUniformRingMatchesTheFormula) {
  // 8 GPUs on one NVSwitch; ring neighbours use GPU->switch->GPU, and every link carries one flow per step,
  // so a step takes its latency 2 x 0.5 us plus (S/8) / 450 GB/s. 2(n-1) = 14 steps:
  // T = 2(n-1)/n x S/B + 2(n-1) x 1 us.
  const auto topo = oracle::nvswitch_node(8);
  const double S = 64 * core::kMiB, B = oracle::kNvlinkBytesPerS;
  const auto r = net::simulate_collective(topo, spec_of(CollectiveOp::allreduce, CollectiveAlgorithm::ring, 8, S),
                                          net::network_model("flow", {}));
  const double expected = 14.0 / 8.0 * S / B + 14 * 2 * oracle::kNvlinkLatencyS;
  EXPECT_NEAR(r.time_s, expected, 14 * kPs);
  EXPECT_EQ(r.flows, 8u * 14u);
  // nccl-tests: algbw = S / T, busbw = algbw x 2(n-1)/n.
  EXPECT_DOUBLE_EQ(r.algbw_bytes_per_s, S / r.time_s);
  EXPECT_DOUBLE_EQ(r.busbw_bytes_per_s, r.algbw_bytes_per_s * 14.0 / 8.0);
  // Uncongested: the analytical (alpha-beta) model gives the same time.
  const auto a = net::simulate_collective(topo, spec_of(CollectiveOp::allreduce, CollectiveAlgorithm::ring, 8, S),
                                          net::network_model("analytical", {}));
  EXPECT_NEAR(a.time_s, r.time_s, 14 * kPs);
}

TEST(Collective, ReduceScatterAndAllGatherTakeHalfTheSteps) {
  // n-1 = 7 steps of S/8 each: T = 7 x (1 us + S/8/B).
  const auto topo = oracle::nvswitch_node(8);
  const double S = 8 * core::kMiB, B = oracle::kNvlinkBytesPerS;
  for (auto op : {CollectiveOp::reducescatter, CollectiveOp::allgather}) {
    const auto r = net::simulate_collective(topo, spec_of(op, CollectiveAlgorithm::ring, 8, S), net::network_model("flow", {}));
    EXPECT_NEAR(r.time_s, 7 * (1e-6 + S / 8 / B), 7 * kPs);
    EXPECT_DOUBLE_EQ(r.busbw_bytes_per_s, r.algbw_bytes_per_s * 7.0 / 8.0);
  }
}

TEST(Collective, FlatAllToAllOnANonBlockingFatTreeIsNicBound) {
  // 8 single-GPU nodes, two leaves, non-blocking spine. Each GPU sends S/8 to 7 others through its 50 GB/s
  // NIC. Same-leaf flows start after 0.3 + 0.6 + 0.6 + 0.3 = 1.8 us, cross-leaf ones 0.8 us later; from
  // 1.8 us on every NIC uplink (and downlink, by symmetry) stays saturated until its last flow ends, so
  // T = 1.8 us + S (n-1)/n / B_nic.
  const auto topo = oracle::two_leaf_oversubscribed(4, 1.0);
  const double S = 256 * core::kMiB;
  const auto r = net::simulate_collective(topo, spec_of(CollectiveOp::alltoall, CollectiveAlgorithm::flat, 8, S),
                                          net::network_model("flow", {}));
  EXPECT_NEAR(r.time_s, 1.8e-6 + S * 7.0 / 8.0 / oracle::kNicBytesPerS, 1e-9 * r.time_s);
  EXPECT_EQ(r.flows, 56u);
  EXPECT_DOUBLE_EQ(r.busbw_bytes_per_s, r.algbw_bytes_per_s * 7.0 / 8.0);
}

TEST(Collective, DeepEpLowLatencyWritesStraightToThePeerAndEndsWithAnAtomicOneRoundTripLater) {
  // The flat case above (8 single-GPU nodes, two leaves): the data moves as in a flat all-to-all, the last
  // flows to drain being the cross-leaf ones, which started 0.8 us later (T = 1.8 us + S 7/8 / B_nic). Each
  // pair then waits for the write's acknowledgement (2.6 us back over the cross-leaf path) before its count
  // atomic (2.6 us forward, no bytes): T_ll = T + 2 x 2.6 us. Flows: 56 data + 56 acks + 56 atomics.
  const auto fabric = oracle::two_leaf_oversubscribed(4, 1.0);
  const double S = 256 * core::kMiB;
  const auto ll = net::simulate_collective(
      fabric, spec_of(CollectiveOp::alltoall, CollectiveAlgorithm::deepep_ll, 8, S), net::network_model("flow", {}));
  EXPECT_NEAR(ll.time_s, 1.8e-6 + S * 7.0 / 8.0 / oracle::kNicBytesPerS + 2 * 2.6e-6, 1e-9 * ll.time_s);
  EXPECT_EQ(ll.flows, 3u * 56u);
  // Inside one node the peers are written with NVLink stores whose flag follows the data: a flat all-to-all.
  const auto node = oracle::nvswitch_node(8);
  const auto in_node = net::simulate_collective(
      node, spec_of(CollectiveOp::alltoall, CollectiveAlgorithm::deepep_ll, 8, S), net::network_model("flow", {}));
  const auto flat = net::simulate_collective(
      node, spec_of(CollectiveOp::alltoall, CollectiveAlgorithm::flat, 8, S), net::network_model("flow", {}));
  EXPECT_DOUBLE_EQ(in_node.time_s, flat.time_s);
  EXPECT_EQ(in_node.flows, 56u);
}

TEST(Collective, HierarchicalAllReducePhases) {
  // 2 nodes x 8 GPUs, rail fat tree. Phase 1: reduce-scatter in each node, 7 steps of 1 us + (S/8)/450 GB/s.
  // Phase 2: all-reduce of S/8 between the 2 nodes on each rail: 2 steps of 1.8 us + (S/16)/50 GB/s (the
  // rail path GPU-NIC-leaf-NIC-GPU; PCIe 64 GB/s > NIC 50 GB/s; each rail has its own leaf).
  // Phase 3: all-gather in each node, as phase 1.
  const auto topo = oracle::rail_fat_tree(2, 8, 2);
  const double S = 256 * core::kMiB;
  const auto r = net::simulate_collective(
      topo, spec_of(CollectiveOp::allreduce, CollectiveAlgorithm::hierarchical, 16, S), net::network_model("flow", {}));
  const double intra = 7 * (1e-6 + S / 8 / oracle::kNvlinkBytesPerS);
  const double inter = 2 * (1.8e-6 + S / 16 / oracle::kNicBytesPerS);
  EXPECT_NEAR(r.time_s, 2 * intra + inter, 30 * kPs);
  EXPECT_DOUBLE_EQ(r.busbw_bytes_per_s, r.algbw_bytes_per_s * 2.0 * 15.0 / 16.0);
}

TEST(Collective, DeepEpAllToAllRelaysOverTheRailThenNvlink) {
  // 2 nodes x 8 GPUs. Every rank sends S/16 to every rank; the tokens for the other node are fully
  // deduplicated (node_bytes = S/16: all 8 GPUs there want the same tokens), one chunk.
  // NIC stage: one S/16 copy per GPU to its rail peer: 1.8 us + (S/16)/50 GB/s; meanwhile the 7 local
  // sends share each GPU's NVLink uplink and finish earlier (1 us + 7 (S/16)/450 GB/s).
  // Forwarding: every relay receives one copy at the same instant and sends S/16 to its 7 local peers,
  // 7 flows per NVLink uplink and downlink: 1 us + 7 (S/16)/450 GB/s.
  const auto topo = oracle::rail_fat_tree(2, 8, 2);
  const double S = 256 * core::kMiB, piece = S / 16;
  auto spec = spec_of(CollectiveOp::alltoall, CollectiveAlgorithm::deepep, 16, S);
  spec.node_bytes.assign(16 * 2, piece);
  spec.pipeline_chunks = 1;
  const auto r = net::simulate_collective(topo, spec, net::network_model("flow", {}));
  const double nic = 1.8e-6 + piece / oracle::kNicBytesPerS;
  const double forward = 1e-6 + 7 * piece / oracle::kNvlinkBytesPerS;
  EXPECT_NEAR(r.time_s, nic + forward, 10 * kPs);
  // 16 x 7 local + 16 NIC copies + 16 x 7 forwards.
  EXPECT_EQ(r.flows, 16u * 7u + 16u + 16u * 7u);
  // Four chunks overlap forwarding with the NIC stage: faster, but never faster than the NIC stage alone.
  spec.pipeline_chunks = 4;
  const auto pipelined = net::simulate_collective(topo, spec, net::network_model("flow", {}));
  EXPECT_LT(pipelined.time_s, r.time_s);
  EXPECT_GT(pipelined.time_s, nic);
}

TEST(Collective, ConcurrentCollectivesContendAndReportTheirOwnTimes) {
  // Two identical ring all-reduces on the same 8 GPUs share every link: each step's chunk moves at half
  // rate, so each takes 14 x (1 us + 2 (S/8)/B), twice the bandwidth term of one alone.
  const auto topo = oracle::nvswitch_node(8);
  const double S = 64 * core::kMiB, B = oracle::kNvlinkBytesPerS;
  engine::Simulator sim;
  auto network = net::make_network(net::network_model("flow", {}), sim, topo);
  net::CollectiveEngine engine(sim, *network, topo);
  std::vector<double> times;
  const auto spec = spec_of(CollectiveOp::allreduce, CollectiveAlgorithm::ring, 8, S);
  for (int k = 0; k < 2; ++k) engine.start(spec, [&](const net::CollectiveResult& r) { times.push_back(r.time_s); });
  EXPECT_EQ(engine.running(), 2u);
  sim.run();
  ASSERT_EQ(times.size(), 2u);
  for (double t : times) EXPECT_NEAR(t, 14 * (1e-6 + 2 * S / 8 / B), 28 * kPs);
  // Every NVLink uplink carried 2 collectives x 14 steps x S/8.
  EXPECT_DOUBLE_EQ(network->link_bytes(0), 2 * 14 * S / 8);
  EXPECT_EQ(engine.running(), 0u);
}

TEST(Collective, BadSpecsAreInputErrors) {
  const auto topo = oracle::nvswitch_node(8);
  auto s = spec_of(CollectiveOp::allgather, CollectiveAlgorithm::deepep, 8, 1e6);
  EXPECT_THROW(net::expand_collective(s, topo), core::InputError);
  s = spec_of(CollectiveOp::alltoall, CollectiveAlgorithm::flat, 8, 1e6);
  s.byte_matrix.assign(10, 1.0);
  EXPECT_THROW(net::expand_collective(s, topo), core::InputError);
  s = spec_of(CollectiveOp::allreduce, CollectiveAlgorithm::ring, 9, 1e6);  // GPU 8 does not exist
  EXPECT_THROW(net::expand_collective(s, topo), core::InputError);
}

TEST(Collective, OneRankCompletesAtOnce) {
  const auto topo = oracle::nvswitch_node(8);
  const auto r = net::simulate_collective(topo, spec_of(CollectiveOp::allreduce, CollectiveAlgorithm::ring, 1, 1e6),
                                          net::network_model("flow", {}));
  EXPECT_EQ(r.time_s, 0.0);
  EXPECT_EQ(r.flows, 0u);
}

TEST(Collective, LinkClassEfficiencyScalesTheBandwidthTerm) {
  // NVLink at 80% of line rate: the ring all-reduce bandwidth term grows by 1/0.8, latency terms stay.
  const auto topo = oracle::nvswitch_node(8);
  const double S = 64 * core::kMiB, B = oracle::kNvlinkBytesPerS;
  net::LinkEfficiency efficiency;
  efficiency.set(topo::LinkClass::nvlink, 0.8);
  const auto r = net::simulate_collective(topo, spec_of(CollectiveOp::allreduce, CollectiveAlgorithm::ring, 8, S),
                                          net::network_model("flow", {}), efficiency);
  EXPECT_NEAR(r.time_s, 14.0 / 8.0 * S / (0.8 * B) + 14 * 2 * oracle::kNvlinkLatencyS, 14 * kPs);
  EXPECT_THROW(efficiency.set(topo::LinkClass::nic, 1.5), core::InputError);
}

namespace {
// nvswitch_node with a host port per GPU at PCIe Gen5 x16's 64 GB/s per direction.
topo::Topology nvswitch_node_with_host(int gpus) {
  auto gpu = oracle::test_gpu();
  gpu.host_link_bytes_per_s = 64e9;
  topo::TopologyBuilder b("nvswitch-host-" + std::to_string(gpus), gpu);
  const auto sw = b.add_vertex(topo::VertexKind::nvswitch, 0);
  for (int g = 0; g < gpus; ++g)
    b.add_duplex(b.add_gpu(0), sw, oracle::kNvlinkBytesPerS, oracle::kNvlinkLatencyS, topo::LinkClass::nvlink);
  return std::move(b).build();
}
}  // namespace

TEST(Collective, HostCopiesRunBeforeAnAllGatherAndAfterAReduceScatterOnEachGpusOwnPort) {
  // FSDP's offload: each of 8 ranks copies its H = 16 MiB shard from host memory over its own 64 GB/s port (no
  // sharing: 16 MiB / 64 GB/s = 262.144 us, no latency), then the ring runs as above, 7 x (1 us + S/8/B). A
  // reduce-scatter copies out the same after its ring: the same sum. The nccl-tests size stays S.
  const auto topo = nvswitch_node_with_host(8);
  const double S = 8 * core::kMiB, H = 16 * core::kMiB, B = oracle::kNvlinkBytesPerS;
  const double expected = H / 64e9 + 7 * (1e-6 + S / 8 / B);
  for (const char* model : {"flow", "analytical"}) {
    auto gather = spec_of(CollectiveOp::allgather, CollectiveAlgorithm::ring, 8, S);
    gather.host_in_bytes = H;
    auto scatter = spec_of(CollectiveOp::reducescatter, CollectiveAlgorithm::ring, 8, S);
    scatter.host_out_bytes = H;
    for (const auto& spec : {gather, scatter}) {
      const auto r = net::simulate_collective(topo, spec, net::network_model(model, {}));
      EXPECT_NEAR(r.time_s, expected, 16 * kPs) << model;
      EXPECT_DOUBLE_EQ(r.algbw_bytes_per_s, S / r.time_s);
      EXPECT_EQ(r.flows, 8u * 7u + 8u);
    }
  }
  // One rank: its copy alone, 262.144 us.
  auto alone = spec_of(CollectiveOp::allgather, CollectiveAlgorithm::ring, 1, S);
  alone.host_in_bytes = H;
  EXPECT_NEAR(net::simulate_collective(topo, alone, net::network_model("flow", {})).time_s, H / 64e9, kPs);
}

TEST(Collective, HostCopiesOnAGpuTypeWithoutAHostLinkAreRefused) {
  auto spec = spec_of(CollectiveOp::allgather, CollectiveAlgorithm::ring, 8, core::kMiB);
  spec.host_in_bytes = core::kMiB;
  try {
    net::simulate_collective(oracle::nvswitch_node(8), spec, net::network_model("flow", {}));
    ADD_FAILURE() << "accepted";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().key, "host_bytes");
  }
}
