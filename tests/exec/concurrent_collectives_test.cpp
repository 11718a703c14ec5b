// Collectives one thread keeps outstanding together (issued before the last is waited for, as FSDP prefetches a
// layer's dense and expert parameters) share the links they cross, and the step counts the bytes of the copies of
// a collective a pass holds one of. Expected times derived by hand on one NVSwitch node (oracle/fabrics.hpp).
#include <gtest/gtest.h>

#include "oracle/fabrics.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/net/network_registry.hpp"

namespace k3::exec {
namespace {

constexpr double kPicosecond = 1e-12;
constexpr double kMebibyte = 1024.0 * 1024.0;

// GPUs 0 and 1, one thread each: issue all-gathers A and B of S bytes over both, then wait for both.
workload::PassProgram two_outstanding_gathers(double S, double copies_of_b = 1) {
  workload::PassProgram p;
  p.gpus = {0, 1};
  p.threads = {{0, {}}, {1, {}}};
  workload::CollectiveCall a{workload::CollectiveKind::allgather, {0, 1}, S, nullptr, "A"};
  workload::CollectiveCall b{workload::CollectiveKind::allgather, {0, 1}, S, nullptr, "B"};
  b.copies_per_block = copies_of_b;
  const int ca = p.add_collective(a, {0, 1}), cb = p.add_collective(b, {0, 1});
  for (auto& t : p.threads) {
    t.steps = {workload::IssueStep{ca}, workload::IssueStep{cb}, workload::WaitStep{ca}, workload::WaitStep{cb}};
  }
  return p;
}

PassRunner flow_runner(const topo::Topology& topology) {
  PassRunnerConfig c;
  c.network = &net::network_model("flow", {});
  return PassRunner(topology, c);
}

TEST(ConcurrentCollectives, TwoOutstandingGathersOnOneThreadShareTheLinks) {
  // Alone, an all-gather of S over 2 GPUs is one ring step: each GPU sends its S/2 over GPU -> switch -> GPU,
  // 2 x 0.5 us + (S/2) / 450 GB/s. A and B together put two flows on every link, each at half the rate:
  // 2 x 0.5 us + S / 450 GB/s. Timed each as if alone, the pass would end at the first figure.
  const auto topology = oracle::nvswitch_node(2);
  const double S = 64 * kMebibyte, hop = 2 * oracle::kNvlinkLatencyS, B = oracle::kNvlinkBytesPerS;
  const auto runner = flow_runner(topology);
  const auto program = two_outstanding_gathers(S);
  EXPECT_TRUE(runner.replays_flow_by_flow(program));
  const auto outcome = runner.run(program);
  EXPECT_NEAR(outcome.duration.seconds(), hop + S / B, 4 * kPicosecond);
}

TEST(ConcurrentCollectives, TheBytesOfUnsimulatedCopiesAreCounted) {
  // Each all-gather sends S/2 each way, each flow over two NVLink links: 2 x 2 x S/2 = 2S of NVLink bytes; A and B
  // 4S. With B standing for 3 copies per block, the pass counts A once and B three times: 2S + 3 x 2S = 8S.
  const auto topology = oracle::nvswitch_node(2);
  const double S = 64 * kMebibyte;
  const auto runner = flow_runner(topology);
  LinkClassBytes once, copies;
  runner.run(two_outstanding_gathers(S), &once);
  runner.run(two_outstanding_gathers(S, 3), &copies);
  const auto nvlink = static_cast<std::size_t>(topo::LinkClass::nvlink);
  EXPECT_DOUBLE_EQ(once.bytes[nvlink], 4 * S);
  EXPECT_DOUBLE_EQ(copies.bytes[nvlink], 8 * S);
}

}  // namespace
}  // namespace k3::exec
