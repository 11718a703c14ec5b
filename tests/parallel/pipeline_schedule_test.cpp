#include <gtest/gtest.h>

#include "sim/parallel/schedule_registry.hpp"

using k3::core::SimTime;
using namespace k3::parallel;

namespace {

SimTime us(double x) { return SimTime::from_us(x); }

k3::parallel::PassCosts uniform_costs(double f, double b, double w, double fb, double p2p = 0.0) {
  k3::parallel::PassCosts c;
  c.forward = [=](int, int) { return us(f); };
  c.backward = [=](int, int) { return us(b); };
  c.weight = [=](int, int) { return us(w); };
  c.forward_backward = [=](int, int, int) { return us(fb); };
  c.p2p = [=](int, int) { return us(p2p); };
  return c;
}

}  // namespace

TEST(PipelineSchedule, OneFOneBBubbleMatchesClosedForm) {
  // PP = 4, m = 8, F = 1 us, B = 2 us, no transfer time.
  // 1F1B makespan = (m + PP - 1)(F + B) = 11 x 3 = 33 us; every rank idles (PP - 1)(F + B) = 9 us.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("1f1b", {}), 4, 1, 8);
  const auto t = k3::parallel::execute_pipeline(s, uniform_costs(1, 2, 0.5, 3));
  EXPECT_EQ(t.makespan, us(33));
  for (int r = 0; r < 4; ++r) EXPECT_EQ(t.bubble(r), us(9)) << "rank " << r;
}

TEST(PipelineSchedule, TransfersDelayDependentPasses) {
  // PP = 2, one micro-batch, p2p time x = 0.25 us: F on rank 0 (1), send (x), F on rank 1 (1), B on rank 1
  // (2), send back (x), B on rank 0 (2): makespan = 1 + x + 1 + 2 + x + 2 = 6.5 us.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("1f1b", {}), 2, 1, 1);
  const auto t = k3::parallel::execute_pipeline(s, uniform_costs(1, 2, 0.5, 3, 0.25));
  EXPECT_EQ(t.makespan, us(6.5));
}

TEST(PipelineSchedule, BlockingSendsHoldTheSender) {
  // PP = 2, m = 2, F = 1, B = 2, p2p x = 0.5 us. Rank 0 runs F0 F1 B0 B1, rank 1 F0 B0 F1 B1.
  // Overlapped sends: r0 F0 0-1, F1 1-2; r1 F0 1.5-2.5, B0 2.5-4.5, F1 4.5-5.5, B1 5.5-7.5; r0 B0 from 5
  // (4.5 + x) to 7, B1 from 8 (7.5 + x) to 10: makespan 10 us.
  // Blocking: every send also holds its sender x. r0 F0 0-1 (+x), F1 1.5-2.5 (+x); r1 F0 1.5-2.5, B0 2.5-4.5
  // (+x), F1 5-6 (its input came at 3), B1 6-8 (+x); r0 B0 5-7, B1 from 8.5 to 10.5: makespan 10.5 us, and
  // each rank spent 2 x 0.5 = 1 us sending, so rank 0's bubble is 10.5 - 6 - 1 = 3.5 us.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("1f1b", {}), 2, 1, 2);
  auto costs = uniform_costs(1, 2, 0.5, 3, 0.5);
  EXPECT_EQ(execute_pipeline(s, costs).makespan, us(10));
  costs.blocking_p2p = true;
  const auto t = k3::parallel::execute_pipeline(s, costs);
  EXPECT_EQ(t.makespan, us(10.5));
  EXPECT_EQ(t.sending[0], us(1));
  EXPECT_EQ(t.sending[1], us(1));
  EXPECT_EQ(t.bubble(0), us(3.5));
}

TEST(PipelineSchedule, InterleavedBubbleShrinksByVirtualStages) {
  // Megatron-LM (SC21 eq. 3): bubble = (PP - 1)(F + B) / v with F, B the costs of a rank's whole model
  // part. Per chunk f = 1, b = 2 with v = 2 chunks: F = 2, B = 4, bubble = 3 x 6 / 2 = 9 us, against
  // 18 us for plain 1F1B with the same per-rank work; makespan = m (F + B) + bubble = 8 x 6 + 9 = 57 us.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("interleaved", {}), 4, 2, 8);
  const auto t = k3::parallel::execute_pipeline(s, uniform_costs(1, 2, 0.5, 3));
  EXPECT_EQ(t.makespan, us(57));
  for (int r = 0; r < 4; ++r) EXPECT_EQ(t.bubble(r), us(9)) << "rank " << r;
}

TEST(PipelineSchedule, DualPipeBubbleMatchesClosedForm) {
  // DualPipe (deepseek-ai/DualPipe README): bubble = (PP/2 - 1)(F&B + B - 3W), B a full backward.
  // Equal pass costs as the zero-bubble papers count them: F = B(input) = W = 1 us, so B = 2 us, and an
  // overlapped F&B that saves nothing, F&B = F + B = 3 us. Bubble = (PP/2 - 1)(3 + 2 - 3) = 2 (PP/2 - 1):
  // 2 us at PP = 4 and 6 us at PP = 8, on every rank. Each rank runs 20 micro-batches' F and B (all
  // directions): 20 x 3 = 60 us of work.
  for (int pp : {4, 8}) {
    const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("dualpipe", {}), pp, 1, 20);
    const auto t = k3::parallel::execute_pipeline(s, uniform_costs(1, 2, 1, 3));
    for (int r = 0; r < pp; ++r) {
      EXPECT_EQ(t.busy[static_cast<std::size_t>(r)], us(60)) << "PP " << pp << " rank " << r;
      EXPECT_EQ(t.bubble(r), us(2.0 * (pp / 2 - 1))) << "PP " << pp << " rank " << r;
    }
  }
}

TEST(PipelineSchedule, DualPipeOverlapShrinksTheBubbleOfTheMiddleRanks) {
  // When F&B overlap saves 0.5 us (F&B = 2.5 us), the formula gives (8/2 - 1)(2.5 + 2 - 3) = 4.5 us at
  // PP = 8: the middle ranks, which the schedule keeps busiest, meet it exactly; the outer ranks idle less.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("dualpipe", {}), 8, 1, 20);
  const auto t = k3::parallel::execute_pipeline(s, uniform_costs(1, 2, 1, 2.5));
  EXPECT_EQ(t.bubble(3), us(4.5));
  EXPECT_EQ(t.bubble(4), us(4.5));
  for (int r = 0; r < 8; ++r) EXPECT_LE(t.bubble(r), us(4.5));
}

TEST(PipelineSchedule, InvalidLayoutsAreInputErrors) {
  EXPECT_THROW(make_schedule(k3::parallel::pipeline_schedule("dualpipe", {}), 3, 1, 12), k3::core::InputError);
  EXPECT_THROW(make_schedule(k3::parallel::pipeline_schedule("dualpipe", {}), 8, 1, 10), k3::core::InputError);
  EXPECT_THROW(make_schedule(k3::parallel::pipeline_schedule("interleaved", {}), 4, 2, 6), k3::core::InputError);
}
