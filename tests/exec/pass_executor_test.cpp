#include <gtest/gtest.h>

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

}  // namespace

TEST(PassExecutor, TwoThreadsShareOneComputeStreamAndHideCommunication) {
  // One GPU, two threads (DualPipe's F&B), collectives take 8 us:
  //   A: compute 10, issue+wait c0, compute 5      B: compute 4, issue+wait c1, compute 6
  // t=0-10 A computes (B queued); 10-14 B computes while c0 runs 10-18; c1 runs 14-22;
  // 18-23 A computes; B's last compute is ready at 22 but waits for the stream until 23, runs 23-29.
  // Duration 29 us; A finishes at 23; each thread is exposed to 8 us of its collective;
  // B waited 10 + 1 = 11 us for the stream.
  k3::workload::PassProgram p;
  p.gpus = {0};
  p.threads.resize(2);
  const int c0 = p.add_collective({k3::workload::CollectiveKind::dispatch, {0}, 0, nullptr, "c0"}, {0});
  const int c1 = p.add_collective({k3::workload::CollectiveKind::combine, {0}, 0, nullptr, "c1"}, {1});
  p.threads[0].steps = {compute(10), k3::workload::IssueStep{c0}, k3::workload::WaitStep{c0}, compute(5)};
  p.threads[1].steps = {compute(4, "attention"), k3::workload::IssueStep{c1}, k3::workload::WaitStep{c1}, compute(6, "attention")};
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
  // With a compute slowdown of 1.5 every compute step takes 1.5 x as long: 45 + 8 + 3 = 56 us.
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
    EXPECT_EQ(execute_pass(p, sim, coll, 1.5).duration, us(56));
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
