// Published MoE families beside K3's: the Qwen3-235B-A22B preset, counted by hand and against its model card.
#include <gtest/gtest.h>

#include "model/model_spec.hpp"
#include "model/ops.hpp"
#include "model/totals.hpp"

using namespace k3::model;

namespace {

// The activated count in the publisher's own convention (PublishedCounts::activated_includes_embedding).
double activated_as_published(const ModelSpec& s, const ModelTotals& t) {
  return s.published.activated_includes_embedding ? t.activated_params_with_embedding : t.activated_params;
}

}  // namespace

TEST(Qwen3Preset, PerLayerCountByHand) {
  const auto q = load_model("qwen3-235b-a22b");
  ASSERT_EQ(q.layers.size(), 94u);
  EXPECT_EQ(q.count_layers(FfnKind::MoE), 94);
  // Attention, widths from heads x head_dim (8192), not from hidden (4096):
  //   q 4096 x 8192 = 33,554,432; k, v 2 x 4096 x 512 = 4,194,304; o 8192 x 4096 = 33,554,432 -> 71,303,168;
  //   q_norm + k_norm 2 x 128 = 256; the two layer RMSNorms 2 x 4096 = 8,192.
  // MoE: router 128 x 4096 = 524,288 (no bias); experts 128 x 3 x 4096 x 1536 = 2,415,919,104.
  const auto l1 = layer_ops(q, 0, MicroBatch{});
  EXPECT_DOUBLE_EQ(block_params(l1), 71303168.0 + 256 + 8192 + 524288 + 2415919104.0);
  // Activated: 8 of the 128 experts, 8 x 3 x 4096 x 1536 = 150,994,944.
  EXPECT_DOUBLE_EQ(block_activated_params(l1), 71303168.0 + 256 + 8192 + 524288 + 150994944.0);
}

// Qwen/Qwen3-235B-A22B model card (Hugging Face): "Number of Parameters: 235B in total and 22B activated".
TEST(Qwen3Preset, MatchesModelCard) {
  const auto q = load_model("qwen3-235b-a22b");
  const auto t = summarize(q, 4096);
  // 94 x 2,487,755,008 + 2 x 151936 x 4096 (untied embedding and head) + 4096 (final norm).
  EXPECT_DOUBLE_EQ(t.total_params, 94 * 2487755008.0 + 2 * 151936.0 * 4096 + 4096);
  EXPECT_NEAR(t.total_params / q.published.total_params, 1.0, 0.01);
  // 22B is met counting the input embedding (22.19B); without it the count is 21.57B, 2% under.
  ASSERT_TRUE(q.published.activated_includes_embedding);
  EXPECT_NEAR(activated_as_published(q, t) / q.published.activated_params, 1.0, 0.01);
}
