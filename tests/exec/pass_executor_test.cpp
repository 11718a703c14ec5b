#include <gtest/gtest.h>

#include <tuple>

#include "sim/exec/pass_executor.hpp"

using k3::core::SimTime;
using namespace k3::exec;
using namespace k3::workload;

namespace {

SimTime us(double x) { return SimTime::from_us(x); }

// A collective model whose every collective takes a fixed time: the hand-derivable case of the
// alpha-beta model (alpha = the fixed time, no bytes term).
class FixedTimeCollectives final : public CollectiveLauncher {
 public:
  FixedTimeCollectives(k3::engine::Simulator& sim, SimTime t) : sim_(sim), t_(t) {}
  void launch(const CollectiveCall&, std::function<void()> on_done) override {
    sim_.schedule_after(t_, std::move(on_done));
  }

 private:
  k3::engine::Simulator& sim_;
  SimTime t_;
};

k3::workload::ComputeStep compute(double x, const char* cat = "dense GEMM") { return {us(x), cat}; }

// One GPU, two threads (DualPipe's F&B), each with a collective of its own:
//   A: compute 10, issue+wait c0, compute 5      B: compute 4, issue+wait c1, compute 6 (attention)
k3::workload::PassProgram two_threads_on_one_gpu() {
  k3::workload::PassProgram p;
  p.gpus = {0};
  p.threads.resize(2);
  const int c0 = p.add_collective({k3::workload::CollectiveKind::dispatch, {0}, 0, nullptr, "c0"}, {0});
  const int c1 = p.add_collective({k3::workload::CollectiveKind::combine, {0}, 0, nullptr, "c1"}, {1});
  p.threads[0].steps = {compute(10), k3::workload::IssueStep{c0}, k3::workload::WaitStep{c0}, compute(5)};
  p.threads[1].steps = {compute(4, "attention"), k3::workload::IssueStep{c1}, k3::workload::WaitStep{c1}, compute(6, "attention")};
  return p;
}

}  // namespace

TEST(PassExecutor, TwoThreadsShareOneComputeStreamAndHideCommunication) {
  // two_threads_on_one_gpu(), collectives take 8 us:
  // t=0-10 A computes (B queued); 10-14 B computes while c0 runs 10-18; c1 runs 14-22;
  // 18-23 A computes; B's last compute is ready at 22 but waits for the stream until 23, runs 23-29.
  // Duration 29 us; A finishes at 23; each thread is exposed to 8 us of its collective;
  // B waited 10 + 1 = 11 us for the stream.
  const auto p = two_threads_on_one_gpu();
  k3::engine::Simulator sim;
  FixedTimeCollectives coll(sim, us(8));
  const auto out = k3::exec::execute_pass(p, sim, coll);
  EXPECT_EQ(out.duration, us(29));
  EXPECT_EQ(out.critical_thread, 1);
  EXPECT_EQ(out.threads[0].finish, us(23));
  EXPECT_EQ(out.threads[0].exposed_comm.at("all-to-all dispatch"), us(8));
  EXPECT_EQ(out.threads[1].exposed_comm.at("all-to-all combine"), us(8));
  EXPECT_EQ(out.threads[1].stream_wait, us(11));
  EXPECT_EQ(out.threads[1].compute_by_category.at("attention"), us(10));
}

TEST(PassExecutor, CollectiveStartsWhenTheLastParticipantIssuesIt) {
  // Two GPUs in one all-to-all of 8 us; GPU 1 computes 30 us before issuing, GPU 0 only 5 us, so the
  // collective runs 30-38 and GPU 0 is exposed 33 us; both then compute 2 us: duration 40 us.
  // A slowdown of 1.5 while communication kernels hold SMs changes nothing here: GPU 0's kernel holds SMs
  // from 5 to 38 while GPU 0 computes nothing, GPU 1's from 30 to 38, and every compute step runs outside.
  k3::workload::PassProgram p;
  p.gpus = {0, 1};
  p.threads.resize(2);
  p.threads[1].gpu_slot = 1;
  const int c = p.add_collective({k3::workload::CollectiveKind::dispatch, {0, 1}, 0, nullptr, "d"}, {0, 1});
  p.threads[0].steps = {compute(5), k3::workload::IssueStep{c}, k3::workload::WaitStep{c}, compute(2)};
  p.threads[1].steps = {compute(30), k3::workload::IssueStep{c}, k3::workload::WaitStep{c}, compute(2)};
  {
    k3::engine::Simulator sim;
    FixedTimeCollectives coll(sim, us(8));
    const auto out = k3::exec::execute_pass(p, sim, coll);
    EXPECT_EQ(out.duration, us(40));
    EXPECT_EQ(out.threads[0].exposed_comm.at("all-to-all dispatch"), us(33));
    EXPECT_EQ(out.threads[1].exposed_comm.at("all-to-all dispatch"), us(8));
  }
  {
    k3::engine::Simulator sim;
    FixedTimeCollectives coll(sim, us(8));
    EXPECT_EQ(execute_pass(p, sim, coll, 1.5).duration, us(40));
  }
}

TEST(PassExecutor, IssueWithoutWaitOverlapsCompute) {
  // Shared experts overlap the dispatch: issue (8 us collective), compute 6, wait, compute 1:
  // the wait blocks 2 us; duration = 8 + 1 = 9 us.
  k3::workload::PassProgram p;
  p.gpus = {0};
  p.threads.resize(1);
  const int c = p.add_collective({k3::workload::CollectiveKind::dispatch, {0}, 0, nullptr, "d"}, {0});
  p.threads[0].steps = {k3::workload::IssueStep{c}, compute(6, "shared experts"), k3::workload::WaitStep{c}, compute(1)};
  k3::engine::Simulator sim;
  FixedTimeCollectives coll(sim, us(8));
  const auto out = k3::exec::execute_pass(p, sim, coll);
  EXPECT_EQ(out.duration, us(9));
  EXPECT_EQ(out.threads[0].exposed_comm.at("all-to-all dispatch"), us(2));
}

TEST(PassExecutor, ACommunicationKernelHolding20Of132SmsSlowsAConcurrentGemmWhileBothRun) {
  // The collective's kernel holds 20 of 132 SMs, so compute beside it drains at 112/132 of its speed.
  // (a) Issue a 66 us collective, then a GEMM of 100 us on all SMs: by 66 us it has drained 66 x 112/132 =
  //     56 us of work; the other 44 us run alone at full speed, ending at 110 us (not 100 x 132/112 = 117.9 us,
  //     the scalar reservation). Rounding the drained work to the picosecond moves the end by at most 1 ps.
  // (b) A 200 us collective outlasts a 56 us GEMM, which runs slowed all along: 56 x 132/112 = 66 us; the
  //     wait then blocks 134 us.
  const double slowdown = 132.0 / 112.0;
  for (const auto& [collective_us, gemm_us, finish_us, compute_us] :
       {std::tuple{66.0, 100.0, 110.0, 110.0}, std::tuple{200.0, 56.0, 200.0, 66.0}}) {
    k3::workload::PassProgram p;
    p.gpus = {0};
    p.threads.resize(1);
    const int c = p.add_collective({k3::workload::CollectiveKind::dispatch, {0}, 0, nullptr, "d"}, {0});
    p.threads[0].steps = {k3::workload::IssueStep{c}, compute(gemm_us), k3::workload::WaitStep{c}};
    k3::engine::Simulator sim;
    FixedTimeCollectives coll(sim, us(collective_us));
    const auto out = execute_pass(p, sim, coll, slowdown);
    EXPECT_NEAR(static_cast<double>(out.duration.ps()), static_cast<double>(us(finish_us).ps()), 1.0) << gemm_us;
    EXPECT_NEAR(static_cast<double>(out.threads[0].compute.ps()), static_cast<double>(us(compute_us).ps()), 1.0);
  }
}

TEST(PassExecutor, TwoThreadsSlowEachOtherOnlyWhileTheirCollectivesRun) {
  // two_threads_on_one_gpu() with compute slowed 1.5x while a collective of the GPU is in flight:
  // 0-10 A computes alone (nothing in flight). At 10 A issues c0 (10-18); B's 4 us step runs slowed: 10-16.
  // At 16 B issues c1 (16-24). At 18 c0 ends, but c1 still holds SMs: A's 5 us step starts slowed and by 24
  // has drained 6 / 1.5 = 4 us; the last 1 us runs at full speed: 18-25. B, woken at 24, waits for the
  // stream until 25 and runs 6 us alone: 25-31. Duration 31 us; A's compute 10 + 7 = 17 us, B's 6 + 6 = 12 us;
  // B waited 10 + 1 = 11 us for the stream.
  const auto p = two_threads_on_one_gpu();
  k3::engine::Simulator sim;
  FixedTimeCollectives coll(sim, us(8));
  const auto out = execute_pass(p, sim, coll, 1.5, true);
  EXPECT_EQ(out.duration, us(31));
  EXPECT_EQ(out.threads[0].finish, us(25));
  EXPECT_EQ(out.threads[0].compute, us(17));
  EXPECT_EQ(out.threads[1].compute_by_category.at("attention"), us(12));
  EXPECT_EQ(out.threads[1].stream_wait, us(11));
}

TEST(PassExecutor, AThreadsRunOfStepsChangesSpeedBetweenItsSteps) {
  // Alone on its GPU, the thread's two 6 us steps run as one segment. A 9 us collective issued first holds
  // SMs (slowdown 1.5): step a drains its 6 us by 9 us (9 / 1.5), step b then runs at full speed 9-15.
  // Each step is booked its own wall time: a 0-9, b 9-15.
  k3::workload::PassProgram p;
  p.gpus = {0};
  p.threads.resize(1);
  const int c = p.add_collective({k3::workload::CollectiveKind::dispatch, {0}, 0, nullptr, "d"}, {0});
  p.threads[0].steps = {k3::workload::IssueStep{c}, compute(6, "a"), compute(6, "b"), k3::workload::WaitStep{c}};
  k3::engine::Simulator sim;
  FixedTimeCollectives coll(sim, us(9));
  const auto out = execute_pass(p, sim, coll, 1.5, true);
  EXPECT_EQ(out.duration, us(15));
  EXPECT_EQ(out.threads[0].compute_by_category.at("a"), us(9));
  EXPECT_EQ(out.threads[0].compute_by_category.at("b"), us(6));
  ASSERT_EQ(out.ops.size(), 3u);  // the collective (booked when it ends) and the two compute steps
  EXPECT_EQ(out.ops[1].kind, "a");
  EXPECT_EQ(out.ops[1].end, us(9));
  EXPECT_EQ(out.ops[2].start, us(9));
  EXPECT_EQ(out.ops[2].end, us(15));
}

namespace {
k3::workload::ComputeStep launched(double gpu_us, double host_us) {
  k3::workload::ComputeStep s = compute(gpu_us);
  s.host = us(host_us);
  return s;
}
}  // namespace

TEST(PassExecutor, AHostSlowerThanItsKernelsSetsThePace) {
  // Three 10 us kernels, each costing the host 25 us to issue. The host issues them at 25, 50 and 75 us whatever
  // the GPU does; each runs as soon as it is issued: 25-35, 50-60, 75-85. The pass takes the host's sum, 75 us,
  // plus the last kernel, 85 us; the GPU waited 25 + 15 + 15 = 55 us for the host.
  // Captured in a CUDA graph, the three cost one launch (25 us) and nothing each: 25 + 3 x 10 = 55 us, the GPU sum
  // after the launch.
  for (const auto& [host_each, duration_us, host_wait_us] : {std::tuple{25.0, 85.0, 55.0}, std::tuple{0.0, 55.0, 25.0}}) {
    k3::workload::PassProgram p;
    p.gpus = {0};
    p.threads.resize(1);
    p.threads[0].steps = {launched(10, 25), launched(10, host_each), launched(10, host_each)};
    k3::engine::Simulator sim;
    FixedTimeCollectives coll(sim, us(8));
    const auto out = execute_pass(p, sim, coll);
    EXPECT_EQ(out.duration, us(duration_us)) << host_each;
    EXPECT_EQ(out.threads[0].host_wait, us(host_wait_us)) << host_each;
    EXPECT_EQ(out.threads[0].compute, us(30));
  }
}

TEST(PassExecutor, AHostThatRunsAheadCostsOnlyItsFirstLaunch) {
  // Kernels of 10 us issued 2 us apart: the host is ahead after the first, so the pass is 2 + 3 x 10 = 32 us.
  k3::workload::PassProgram p;
  p.gpus = {0};
  p.threads.resize(1);
  p.threads[0].steps = {launched(10, 2), launched(10, 2), launched(10, 2)};
  k3::engine::Simulator sim;
  FixedTimeCollectives coll(sim, us(8));
  EXPECT_EQ(execute_pass(p, sim, coll).duration, us(32));
}

TEST(PassExecutor, ASyncPointHoldsTheHostUntilTheGpuGetsThere) {
  // Issue an 8 us collective at 0; a 10 us kernel (1 us to issue) runs 1-11; the wait is met at 11 (the GPU's
  // order). A host sync there holds the host until 11, so the next kernel is issued at 12 and runs 12-22: 22 us.
  // Without the sync the host issued it at 2, long before the GPU got there: it runs 11-21, 21 us.
  for (const auto& [sync, duration_us] : {std::pair{true, 22.0}, std::pair{false, 21.0}}) {
    k3::workload::PassProgram p;
    p.gpus = {0};
    p.threads.resize(1);
    const int c = p.add_collective({k3::workload::CollectiveKind::dispatch, {0}, 0, nullptr, "d"}, {0});
    p.threads[0].steps = {k3::workload::IssueStep{c}, launched(10, 1), k3::workload::WaitStep{c, sync}, launched(10, 1)};
    k3::engine::Simulator sim;
    FixedTimeCollectives coll(sim, us(8));
    EXPECT_EQ(execute_pass(p, sim, coll).duration, us(duration_us)) << sync;
  }
}

TEST(PassExecutor, AnIssueSyncHoldsTheHostUntilEveryMemberHasIssued) {
  // Two GPUs. GPU 0 issues a dispatch at once (2 us of host), GPU 1 only after a 30 us kernel. With a host sync at
  // the issue (DeepEP's notify), GPU 0's host waits for GPU 1 to issue, at 30 us, then issues its 10 us shared
  // expert (1 us of host): it runs 31-41. The collective (8 us) runs 30-38; GPU 0 waits for it at 41 and
  // finishes. GPU 1: 0-30 kernel, issue at 30, wait until 38, then its 10 us kernel (1 us of host, issued long
  // before) runs 38-48: the pass takes 48 us. Without the sync GPU 0 runs on; the pass
  // still takes 48 us, and GPU 0 (its expert at 3-13) finishes when the collective does, at 38.
  for (const auto& [sync, gpu0_finish_us] : {std::pair{true, 41.0}, std::pair{false, 38.0}}) {
    k3::workload::PassProgram p;
    p.gpus = {0, 1};
    p.threads.resize(2);
    p.threads[1].gpu_slot = 1;
    const int c = p.add_collective({k3::workload::CollectiveKind::dispatch, {0, 1}, 0, nullptr, "d"}, {0, 1});
    k3::workload::IssueStep issue{c, us(2), sync};
    p.threads[0].steps = {issue, launched(10, 1), k3::workload::WaitStep{c}};
    p.threads[1].steps = {compute(30), k3::workload::IssueStep{c}, k3::workload::WaitStep{c}, launched(10, 1)};
    k3::engine::Simulator sim;
    FixedTimeCollectives coll(sim, us(8));
    const auto out = execute_pass(p, sim, coll);
    EXPECT_EQ(out.duration, us(48)) << sync;
    EXPECT_EQ(out.threads[0].finish, us(gpu0_finish_us)) << sync;
  }
}
