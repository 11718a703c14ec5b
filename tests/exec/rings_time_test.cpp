// Ring collectives costed from one of their steps (PassRunner::rings_time), against the whole transfer DAG
// (concurrent_time) and against times derived by hand on one NVSwitch node (oracle/fabrics.hpp).
#include <gtest/gtest.h>

#include "oracle/fabrics.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/net/network_registry.hpp"

namespace k3::exec {
namespace {

constexpr double kPs = 1e-12;
constexpr double kMiB = 1024.0 * 1024.0;

net::CollectiveSpec ring(net::CollectiveOp op, std::vector<topo::GpuId> ranks, double bytes) {
  net::CollectiveSpec s;
  s.op = op;
  s.algorithm = net::CollectiveAlgorithm::ring;
  s.ranks = std::move(ranks);
  s.bytes = bytes;
  return s;
}

PassRunner runner_on(const topo::Topology& topology, const char* network) {
  PassRunnerConfig c;
  c.network = &net::network_model(network, {});
  return PassRunner(topology, c);
}

TEST(RingsTime, OneRingTakesItsStepsTimesOneStepOnEitherNetwork) {
  // 8 GPUs on one NVSwitch, a ring all-reduce of S: 2(n-1) = 14 steps, each a chunk S/8 over GPU -> switch ->
  // GPU with every link carrying one flow: 14 x (2 x 0.5 us + S/8 / 450 GB/s). The transfer DAG gives the same.
  const auto topology = oracle::nvswitch_node(8);
  const double S = 64 * kMiB;
  const auto spec = ring(net::CollectiveOp::allreduce, {0, 1, 2, 3, 4, 5, 6, 7}, S);
  const double expected = 14 * (2 * oracle::kNvlinkLatencyS + S / 8 / oracle::kNvlinkBytesPerS);
  for (const char* network : {"analytical", "flow"}) {
    const auto runner = runner_on(topology, network);
    LinkClassBytes by_step, by_dag;
    EXPECT_NEAR(runner.rings_time({spec}, &by_step), expected, 14 * kPs) << network;
    EXPECT_NEAR(runner.concurrent_time({spec}, &by_dag), expected, 14 * kPs) << network;
    // 14 steps x 8 chunks, each over two NVLink links.
    const auto nvlink = static_cast<std::size_t>(topo::LinkClass::nvlink);
    EXPECT_DOUBLE_EQ(by_step.bytes[nvlink], 14 * 8 * 2 * S / 8) << network;
    EXPECT_DOUBLE_EQ(by_dag.bytes[nvlink], by_step.bytes[nvlink]) << network;
  }
}

TEST(RingsTime, RingsSlowEachOtherOnlyWhileBothRun) {
  // Analytical network, one NVSwitch. Ring A: all-reduce of a over {0, 1}, 2 steps of chunk a/2. Ring B:
  // all-reduce of b over {0, 2, 3}, 4 steps of chunk b/3. Together, GPU 0's up- and downlink carry a/2 + b/3 a
  // step, and every flow of both rings crosses one of them except B's 2 -> 3, so both steps take
  // 1 us + (a/2 + b/3) / 450 GB/s. A is done after its 2 steps; B has 2 steps left, alone: 1 us + (b/3) / 450 GB/s.
  const auto topology = oracle::nvswitch_node(4);
  const double a = 48 * kMiB, b = 96 * kMiB, B = oracle::kNvlinkBytesPerS, hop = 2 * oracle::kNvlinkLatencyS;
  const auto runner = runner_on(topology, "analytical");
  const double together = hop + (a / 2 + b / 3) / B, alone = hop + b / 3 / B;
  const double t = runner.rings_time({ring(net::CollectiveOp::allreduce, {0, 1}, a),
                                      ring(net::CollectiveOp::allreduce, {0, 2, 3}, b)});
  EXPECT_NEAR(t, 2 * together + 2 * alone, 8 * kPs);
  // Alone, B is 4 of its own steps, and the longer ring sets the time whichever comes first.
  EXPECT_NEAR(runner.rings_time({ring(net::CollectiveOp::allreduce, {0, 2, 3}, b)}), 4 * alone, 4 * kPs);
  const double swapped = runner.rings_time({ring(net::CollectiveOp::allreduce, {0, 2, 3}, b),
                                            ring(net::CollectiveOp::allreduce, {0, 1}, a)});
  EXPECT_NEAR(swapped, t, 8 * kPs);
}

TEST(RingsTime, ReduceScatterAndAllGatherTakeNMinusOneSteps) {
  // n - 1 = 3 steps of S/4 on a 4-GPU node.
  const auto topology = oracle::nvswitch_node(4);
  const double S = 32 * kMiB;
  const auto runner = runner_on(topology, "analytical");
  const double step = 2 * oracle::kNvlinkLatencyS + S / 4 / oracle::kNvlinkBytesPerS;
  for (auto op : {net::CollectiveOp::reducescatter, net::CollectiveOp::allgather}) {
    EXPECT_NEAR(runner.rings_time({ring(op, {0, 1, 2, 3}, S)}), 3 * step, 3 * kPs);
  }
}

}  // namespace
}  // namespace k3::exec
