#include <gtest/gtest.h>

#include "model/memory.hpp"
#include "model/model_spec.hpp"
#include "model/totals.hpp"

using namespace k3::model;

TEST(Memory, AdamWIsEighteenBytesPerParam) {
  MicroBatch mb;
  const auto blocks = build_ops(load_model("deepseek-v3"), mb);
  const auto s = param_state_bytes(blocks, Optimizer::AdamW);
  // 2 (BF16 weight) + 4 (fp32 grad) + 4 (master) + 2 x 4 (moments) = 18 B.
  EXPECT_DOUBLE_EQ(s.bytes_per_param(), 18.0);
  OptimizerBytes bf16_moments;
  bf16_moments.moment = 2;
  EXPECT_DOUBLE_EQ(param_state_bytes(blocks, Optimizer::AdamW, bf16_moments).bytes_per_param(), 14.0);
}

TEST(Memory, MuonKeepsOneMomentOnHiddenMatrices) {
  MicroBatch mb;
  const auto blocks = build_ops(load_model("kimi-k2"), mb);
  // Matrices: 2 + 4 + 4 + 4 = 14 B; embedding, head, norms, router bias stay on AdamW at 18 B.
  double matrix = 0, other = 0;
  for (const auto& b : blocks)
    for (const auto& op : b.ops) (op.muon_matrix ? matrix : other) += op.params;
  const auto s = param_state_bytes(blocks, Optimizer::Muon);
  EXPECT_DOUBLE_EQ(s.total(), 14 * matrix + 18 * other);
  EXPECT_GT(other, 2 * 163840.0 * 7168);  // embedding + head at least
}

TEST(Memory, RecomputationOrdersActivationBytes) {
  MicroBatch mb;
  mb.seq = 4096;
  const auto blocks = build_ops(load_model("k3"), mb);
  const double none = activation_bytes(blocks, RecomputePolicy::none());
  const double sel = activation_bytes(blocks, RecomputePolicy::selective());
  const double full = activation_bytes(blocks, RecomputePolicy::whole_blocks());
  EXPECT_GT(none, sel);
  EXPECT_GT(sel, full);
  // Full: every block input (4096 x 7168 x 2 B; the MTP block keeps two streams) + embedding/head as
  // without recomputation + the largest block's full set while it recomputes.
  double inputs = 0, largest = 0, fixed = 0;
  for (const auto& b : blocks) {
    double saved = 0;
    for (const auto& op : b.ops) saved += op.saved_bytes;
    if (b.role == BlockRole::Layer || b.role == BlockRole::Mtp) {
      inputs += b.input_bytes;
      largest = std::max(largest, saved);
    } else {
      fixed += saved;
    }
  }
  EXPECT_DOUBLE_EQ(inputs, (93 + 2) * 4096.0 * 7168 * 2);
  EXPECT_DOUBLE_EQ(full, inputs + largest + fixed);
  // Kept per micro-batch vs needed once while recomputing.
  const auto split = activation_memory(blocks, RecomputePolicy::whole_blocks());
  EXPECT_DOUBLE_EQ(split.kept, inputs + fixed);
  EXPECT_DOUBLE_EQ(split.recompute_peak, largest);
  // Selective recomputes op by op (norms, activations, attention core): no working set (Korthikanti).
  EXPECT_EQ(activation_memory(blocks, RecomputePolicy::selective()).recompute_peak, 0);
  // Full recomputation redoes every layer's forward; selective only the cheap ops.
  EXPECT_GT(recompute_flops(blocks, RecomputePolicy::whole_blocks()),
            10 * recompute_flops(blocks, RecomputePolicy::selective()));
  EXPECT_EQ(recompute_flops(blocks, RecomputePolicy::none()), 0);
}
