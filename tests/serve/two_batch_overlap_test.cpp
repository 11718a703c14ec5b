// Two-batch overlap on one GPU, derived by hand: two micro-batches share the compute stream and the communication
// stream, and a running communication kernel slows the compute beside it.
#include <gtest/gtest.h>

#include "sim/serve/two_batch_overlap.hpp"

namespace {

using k3::serve::IterationStage;
using k3::serve::two_batch_iteration;

constexpr double kMs = 1e-3;

TEST(TwoBatchOverlap, WithoutCommunicationTheComputeRunsBackToBack) {
  // 3 ms, an all-to-all that takes no time, 2 ms: each micro-batch computes 5 ms on the one stream, 10 ms in all.
  const std::vector<IterationStage> stages{{3 * kMs, false}, {0, true}, {2 * kMs, false}};
  EXPECT_NEAR(two_batch_iteration(stages, 132.0 / 112.0), 10 * kMs, 1e-12);
}

TEST(TwoBatchOverlap, WithoutComputeTheCommunicationRunsBackToBack) {
  // 4 ms and 1 ms of communication per micro-batch, one kernel at a time: 10 ms.
  const std::vector<IterationStage> stages{{4 * kMs, true}, {1 * kMs, true}};
  EXPECT_NEAR(two_batch_iteration(stages, 1.0), 10 * kMs, 1e-12);
}

TEST(TwoBatchOverlap, CommunicationHidesUnderTheOtherMicroBatchsCompute) {
  // Each micro-batch: 2 ms compute, a 1 ms all-to-all, 2 ms compute. With no SMs held:
  //   A compute 0-2; A all-to-all 2-3 under B's first compute 2-4; A's second compute 4-6 under B's all-to-all
  //   4-5; B's second compute 6-8. 8 ms against 10 without overlap: the communication is hidden.
  const std::vector<IterationStage> stages{{2 * kMs, false}, {1 * kMs, true}, {2 * kMs, false}};
  EXPECT_NEAR(two_batch_iteration(stages, 1.0), 8 * kMs, 1e-12);
  // DeepEP holding 24 of 132 SMs: the compute under each all-to-all runs at 108/132 of full speed for its 1 ms,
  // so it drains 108/132 ms of work there, and ends 1 - 108/132 = 24/132 ms later. Twice: 8 + 2 x 24/132 ms.
  EXPECT_NEAR(two_batch_iteration(stages, 132.0 / 108.0), (8 + 2 * 24.0 / 132.0) * kMs, 1e-11);
}

TEST(TwoBatchOverlap, AQueuedKernelWaitsForTheOneBefore) {
  // 1 ms compute then a 5 ms all-to-all: A's runs 1-6, B's (issued at 2) waits for it and runs 6-11.
  const std::vector<IterationStage> stages{{1 * kMs, false}, {5 * kMs, true}};
  EXPECT_NEAR(two_batch_iteration(stages, 1.0), 11 * kMs, 1e-12);
}

// Issue 49: the combine sent expert by expert under the down GEMM (scheduler.overlap combine_with_down_gemm), one
// micro-batch. An 8 ms GEMM and a 4 ms combine in 4 pieces: GEMM quarters of 2 ms, combine pieces of 1 ms, each
// piece sent once its quarter is done.
TEST(TwoBatchOverlap, ACombineInPiecesRunsUnderTheDownGemm) {
  const std::vector<IterationStage> stages{{8 * kMs, false}, {4 * kMs, true, 4}};
  // No SMs held: quarters end at 2, 4, 6, 8 ms; pieces run 2-3, 4-5, 6-7, 8-9. 9 ms against 12 one after the other.
  EXPECT_NEAR(k3::serve::iteration_on_streams(stages, 1, 1.0), 9 * kMs, 1e-12);
  // The combine holding half the SMs (slowdown 2): quarter 1 ends at 2; piece 1 runs 2-3, so quarter 2 does half
  // of 1 ms there and its other 1.5 ms after: ends at 4.5. Piece 2 4.5-5.5, quarter 3 ends 7; piece 3 7-8, quarter
  // 4 ends 9.5; piece 4 9.5-10.5.
  EXPECT_NEAR(k3::serve::iteration_on_streams(stages, 1, 2.0), 10.5 * kMs, 1e-11);
  // In one piece it is the plain sequence: 8 + 4 ms.
  const std::vector<IterationStage> whole{{8 * kMs, false}, {4 * kMs, true}};
  EXPECT_NEAR(k3::serve::iteration_on_streams(whole, 1, 2.0), 12 * kMs, 1e-12);
}

// The shared experts beside the dispatch (scheduler.overlap shared_experts_with_dispatch): 2 ms of attention, a
// dispatch, 1 ms of shared experts issued after it and run while it is in flight, 2 ms of routed experts after it.
TEST(TwoBatchOverlap, SharedExpertsRunWhileTheDispatchIsInFlight) {
  auto stages = [](double dispatch_ms) {
    std::vector<IterationStage> s{{2 * kMs, false}, {dispatch_ms * kMs, true}, {1 * kMs, false}, {2 * kMs, false}};
    s[2].beside_communication = true;
    return s;
  };
  // No SMs held: the shared experts hide under a 3 ms dispatch, 2 + 3 + 2 = 7 ms (8 one after the other); under a
  // 0.5 ms one they end 1 ms after it began: 2 + 1 + 2 = 5 ms.
  EXPECT_NEAR(k3::serve::iteration_on_streams(stages(3), 1, 1.0), 7 * kMs, 1e-12);
  EXPECT_NEAR(k3::serve::iteration_on_streams(stages(0.5), 1, 1.0), 5 * kMs, 1e-12);
  // The dispatch holding half the SMs (slowdown 2): over its 1.5 ms the shared experts do 0.75 ms of their work and
  // the other 0.25 ms at full speed after it: 2 + 1.75 + 2 = 5.75 ms.
  EXPECT_NEAR(k3::serve::iteration_on_streams(stages(1.5), 1, 2.0), 5.75 * kMs, 1e-11);
}

}  // namespace
