// NVLink's rate and hop latency from NCCL tables: a hand-made sweep on the h200-rail topology (450 GB/s NVLink per
// direction, 0.5 us per hop in the file), every expected figure derived in a comment.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/provenance.hpp"
#include "sim/cost/measured_links.hpp"
#include "topologies/topology.hpp"

using namespace k3;

namespace {

// num_gpus {2, 4, 8} x message_size {1024, 4096, 1.8e8} elements of half. Large-message time is measured only on
// 8 GPUs; the others are NaN (not measured), as sparse rows are in the shipped tables.
cost::KernelTable nccl(const char* op, double small_2, double small_4, double small_8, double large_8_us) {
  cost::KernelTable t;
  t.op_class = "nccl";
  t.keys = {{"nccl_dtype", "half"}, {"op_name", op}};
  t.axes = {{"num_gpus", {2, 4, 8}}, {"message_size", {1024, 4096, 1.8e8}}};
  const double nan = std::nan("");
  // At each GPU count the 4096-element row is 1 us slower than the 1024-element one, so the fastest is the latter.
  t.latency_us = {small_2, small_2 + 1, nan, small_4, small_4 + 1, nan, small_8, small_8 + 1, large_8_us};
  return t;
}

cost::KernelTables h200_sweep() {
  cost::KernelTables k;
  k.gpu = "H200-SXM";
  k.device = "NVIDIA H200";
  k.origin = "hand-made";
  // Bus bytes on 8 GPUs at 1.8e8 elements: 7/8 x 1.8e8 x 2 B = 3.15e8 B.
  //   all_gather     1000 us -> 315 GB/s = 0.70 of 450
  //   reduce_scatter  875 us -> 360 GB/s = 0.80 of 450
  //   alltoall       1750 us -> 180 GB/s = 0.40 of 450
  // Latency-bound rows (fastest of <= 4096 elements) over ring steps n - 1 = 1, 3, 7:
  //   all_gather     10, 12, 16 us -> slope 1 us per step -> 0.5 us per hop (two hops per step)
  //   reduce_scatter 20, 24, 32 us -> slope 2 us per step -> 1.0 us per hop
  k.tables = {nccl("all_gather", 10, 12, 16, 1000), nccl("reduce_scatter", 20, 24, 32, 875),
              nccl("alltoall", 30, 40, 50, 1750)};
  k.index();
  return k;
}

constexpr auto kNvlink = static_cast<std::size_t>(topo::LinkClass::nvlink);

}  // namespace

TEST(MeasuredLinks, NvlinkRateIsTheMeanRingBusBandwidthOverLineRate) {
  const auto topology = topo::load_topology("h200-rail");
  const auto rates = cost::nccl_link_rates(h200_sweep(), topology);
  ASSERT_TRUE(rates[kNvlink].has_value());
  const auto& m = *rates[kNvlink];
  // (0.70 + 0.80) / 2 = 0.75; the range spans all-to-all's 0.40 up to reduce-scatter's 0.80.
  EXPECT_NEAR(m.fraction, 0.75, 1e-12);
  EXPECT_NEAR(m.low, 0.40, 1e-12);
  EXPECT_NEAR(m.high, 0.80, 1e-12);
  // Per hop: (0.5 + 1.0) / 2 = 0.75 us, ranging 0.5..1.0 us.
  EXPECT_NEAR(m.hop_latency_s, 0.75e-6, 1e-15);
  EXPECT_NEAR(m.hop_latency_low_s, 0.5e-6, 1e-15);
  EXPECT_NEAR(m.hop_latency_high_s, 1.0e-6, 1e-15);
  EXPECT_NE(m.source.find("315 and 360 GB/s"), std::string::npos) << m.source;
  // Only NVLink is measured by an intra-node sweep.
  for (std::size_t c = 0; c < rates.size(); ++c) {
    if (c != kNvlink) {
      EXPECT_FALSE(rates[c].has_value()) << c;
    }
  }
}

TEST(MeasuredLinks, TheNetworkModelTakesTheMeasuredFiguresBeforeTheTopologyFile) {
  const auto topology = topo::load_topology("h200-rail");
  core::Provenance prov;
  const auto e = net::register_link_figures(topology, prov, cost::nccl_link_rates(h200_sweep(), topology));
  // The file says 0.824 (NCCL's SM90 constant); the measurement on the GPU wins.
  EXPECT_NEAR(e.of(topo::LinkClass::nvlink), 0.75, 1e-12);
  EXPECT_EQ(prov.entry("link.nvlink.efficiency").kind, core::SourceKind::collective_measurement);
  // The file's 0.5 us per hop becomes 0.75 us: a latency scale of 1.5.
  EXPECT_NEAR(e.latency_scale[kNvlink], 1.5, 1e-9);
  EXPECT_NEAR(prov.value("link.nvlink.latency"), 0.75e-6, 1e-15);
  // The NIC keeps the topology file's achievable figure (0.94).
  EXPECT_NEAR(e.of(topo::LinkClass::nic), 0.94, 1e-12);
}

TEST(MeasuredLinks, AnotherGpusTablesGiveNothing) {
  // The H800 borrows the H100's kernel tables, but its NVLink is a different part (400 GB/s): no figure carries over.
  auto sweep = h200_sweep();
  sweep.gpu = "H100-SXM";
  const auto rates = cost::nccl_link_rates(sweep, topo::load_topology("h200-rail"));
  EXPECT_FALSE(rates[kNvlink].has_value());
}

TEST(MeasuredLinks, ARateAboveLineRateIsRefused) {
  // all_gather at 400 us -> 787.5 GB/s, reduce_scatter 875 us -> 360 GB/s: mean 1.275 of line rate, which no ring
  // over these links reaches (an NVLS-style in-switch figure); nothing is taken.
  auto sweep = h200_sweep();
  sweep.tables[0] = nccl("all_gather", 10, 12, 16, 400);
  sweep.index();
  EXPECT_FALSE(cost::nccl_link_rates(sweep, topo::load_topology("h200-rail"))[kNvlink].has_value());
}

namespace {

// DeepEP normal mode inside one node of 8 GPUs: SMs {12, 24} x tokens per rank {4096, 8192}; the 12-SM rows are
// twice as slow, so a look-up that ignored the SM count would not find the figures below.
cost::KernelTable deepep(const char* op, const char* topk, const char* experts, double us_at_24_sms_8192) {
  cost::KernelTable t;
  t.op_class = op;
  t.keys = {{"node_num", "1"}, {"hidden_size", "4096"}, {"num_topk", topk}, {"num_experts", experts}};
  t.axes = {{op == std::string("deepep_normal_dispatch") ? "dispatch_sms" : "combine_sms", {12, 24}},
            {"num_token", {4096, 8192}}};
  const double u = us_at_24_sms_8192;
  t.latency_us = {u, 2 * u, u / 2, u};
  return t;
}

cost::KernelTables h200_deepep() {
  cost::KernelTables k;
  k.gpu = "H200-SXM";
  k.device = "NVIDIA H200";
  k.origin = "hand-made";
  // At 24 SMs and 8,192 tokens per rank, hidden 4,096, R = 8 GPUs, 450 GB/s NVLink per direction:
  // - top-1 of 8 experts: a token reaches a given GPU with 1 - 7/8 = 1/8, so a rank receives 8 x 8192 / 8 = 8,192
  //   tokens; on the wire 7/8 of them.
  //   dispatch: 8192 x 4096 x (1 + 4/128) x 7/8 = 30,277,632 B in 100 us = 302.8 GB/s = 0.67284 of 450
  //   combine:  8192 x 4096 x 2 x 7/8          = 58,720,256 B in 200 us = 293.6 GB/s = 0.65245
  // - top-2 of 16: 1 - (14/16)(13/15) = 0.241667, so 8 x 8192 x 0.241667 = 15,837.9 tokens received.
  //   dispatch: 58,536,755 B in 200 us = 0.65041;  combine: 113,525,828 B in 400 us = 0.63070
  // Sorted 0.63070, 0.65041, 0.65245, 0.67284: the median (the upper of the middle two) 0.65245, range 0.63070..0.67284.
  k.tables = {deepep("deepep_normal_dispatch", "1", "8", 100), deepep("deepep_normal_combine", "1", "8", 200),
              deepep("deepep_normal_dispatch", "2", "16", 200), deepep("deepep_normal_combine", "2", "16", 400)};
  k.index();
  return k;
}

}  // namespace

TEST(MeasuredLinks, DeepepCopyRateIsTheMedianWireRateOverShapesAndDirections) {
  const auto topology = topo::load_topology("h200-rail");
  const auto m = cost::deepep_copy_rate(h200_deepep(), topology, 24);
  ASSERT_TRUE(m.has_value());
  EXPECT_NEAR(m->fraction, 0.65245, 1e-5);
  EXPECT_NEAR(m->low, 0.63070, 1e-5);
  EXPECT_NEAR(m->high, 0.67284, 1e-5);
  // More SMs than measured are read at the largest measured count (24), not extrapolated.
  EXPECT_NEAR(cost::deepep_copy_rate(h200_deepep(), topology, 64)->fraction, 0.65245, 1e-5);
  // At 12 SMs every time doubles: half the rate.
  EXPECT_NEAR(cost::deepep_copy_rate(h200_deepep(), topology, 12)->fraction, 0.65245 / 2, 1e-5);
  // The network model's copy port takes it, marked as a kernel measurement.
  core::Provenance prov;
  EXPECT_NEAR(net::register_deepep_copy_rate(prov, m), 0.65245, 1e-5);
  EXPECT_EQ(prov.entry("alltoall.deepep.nvlink_copy_fraction").kind, core::SourceKind::kernel_measurement);
  EXPECT_NE(prov.entry("alltoall.deepep.nvlink_copy_fraction").source.find("at 8192 tokens per rank and 24 SMs"),
            std::string::npos);
}

TEST(MeasuredLinks, DeepepWithoutTheGpusOwnTablesKeepsThePublishedRate) {
  auto tables = h200_deepep();
  tables.gpu = "H100-SXM";
  EXPECT_FALSE(cost::deepep_copy_rate(tables, topo::load_topology("h200-rail"), 20).has_value());
  // Without a measurement: DeepEP's intranode kernels on H20, 0.655 of line rate.
  core::Provenance prov;
  EXPECT_NEAR(net::register_deepep_copy_rate(prov), 0.655, 1e-12);
}
