// Memory per GPU: what scales with the micro-batches a schedule keeps in flight and what does not.
#include <gtest/gtest.h>

#include "sim/parallel/schedule_registry.hpp"
#include "sim/train/step_memory.hpp"

namespace k3::train {
namespace {

double share(const std::vector<train::MemoryShare>& shares, const std::string& name) {
  for (const auto& s : shares)
    if (s.name == name) return s.bytes;
  return -1;
}

TEST(StepMemory, RecomputationWorkingSetCountsOncePerGpu) {
  // 1F1B, PP 8, rank 0 keeps 8 micro-batches in flight. Each keeps 2 GB of block inputs; the one block
  // recomputing during a backward needs 1.5 GB on top, once: activations 8 x 2 = 16 GB, working set 1.5 GB.
  train::MemoryInputs in;
  in.activations_per_microbatch = 2e9;
  in.recompute_working_set = 1.5e9;
  in.microbatches_in_flight = parallel::pipeline_schedule("1f1b", {}).microbatches_in_flight(8, 1, 0, 64);
  EXPECT_EQ(in.microbatches_in_flight, 8);
  const auto shares = train::memory_per_gpu(in);
  EXPECT_DOUBLE_EQ(share(shares, "activations"), 16e9);
  EXPECT_DOUBLE_EQ(share(shares, "recomputation working set"), 1.5e9);
  // Without full recomputation there is no working set and no row for it.
  in.recompute_working_set = 0;
  EXPECT_EQ(share(train::memory_per_gpu(in), "recomputation working set"), -1);
}

TEST(StepMemory, InterleavedWarmupInFlight) {
  // Megatron-LM interleaved warm-up on rank 0 of PP 4, vpp 2: (4-0-1)*2 + (2-1)*4 + 1 = 11 chunk passes,
  // each half of the rank's layers: 5.5 micro-batches through all of them.
  EXPECT_DOUBLE_EQ(parallel::pipeline_schedule("interleaved", {}).microbatches_in_flight(4, 2, 0, 64), 5.5);
  // The last rank: (0)*2 + 4 + 1 = 5 chunk passes = 2.5.
  EXPECT_DOUBLE_EQ(parallel::pipeline_schedule("interleaved", {}).microbatches_in_flight(4, 2, 3, 64), 2.5);
}

// Issue 49: optimizer.offload_fraction. 1e9 dense parameters under AdamW with fp32 moments hold 4 + 2 x 4 = 12 B
// each of optimizer state: 12 GB; keeping 0.25 of it in host memory leaves 9 GB in HBM, weights and gradients as
// they were (2 + 4 B: 6 GB).
TEST(StepMemory, OffloadedOptimizerStateLeavesHbm) {
  train::MemoryInputs in;
  in.params.dense = 1e9;
  EXPECT_DOUBLE_EQ(share(train::memory_per_gpu(in), "optimizer state"), 12e9);
  in.optimizer_offload_fraction = 0.25;
  const auto shares = train::memory_per_gpu(in);
  EXPECT_DOUBLE_EQ(share(shares, "optimizer state"), 9e9);
  EXPECT_DOUBLE_EQ(share(shares, "weights") + share(shares, "gradients"), 6e9);
}

}  // namespace
}  // namespace k3::train
