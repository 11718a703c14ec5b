// Published MoE families beside K3's: the Qwen3-235B-A22B preset counted by hand and against its model card;
// sliding-window layers, attention sinks and biases in the preset format, and what the window saves.
#include <gtest/gtest.h>

#include "model/model_spec.hpp"
#include "model/ops.hpp"
#include "model/totals.hpp"
#include "core/error.hpp"

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

// The causal-window convention of ops.hpp: pairs = seq W - W^2 / 2, the continuous form of
// sum over positions p of min(p, W), as seq^2 / 2 is of the full causal triangle.
TEST(SlidingWindow, AttentionPairs) {
  EXPECT_DOUBLE_EQ(attention_pairs(4096, true, 0, 0), 4096.0 * 4096 / 2);
  EXPECT_DOUBLE_EQ(attention_pairs(4096, true, 128, 0), 4096.0 * 128 - 128.0 * 128 / 2);  // 516,096
  EXPECT_DOUBLE_EQ(attention_pairs(4096, false, 128, 0), 4096.0 * 128);
  EXPECT_DOUBLE_EQ(attention_pairs(100, true, 128, 0), 100.0 * 100 / 2);  // a window past the sequence: no change
  // Chunks of 1000 in 4096 tokens: four full triangles and one of 96.
  EXPECT_DOUBLE_EQ(attention_pairs(4096, true, 0, 1000), 4 * 1000.0 * 1000 / 2 + 96.0 * 96 / 2);
}

namespace {

// gpt-oss-20b written in the preset format (shapes from its config.json fixture).
const char* kGptOss20bYaml = R"(
name: gpt-oss-20b-yaml
hidden: 2880
vocab: 201088
layers: 24
full_attention: gqa
gqa: {heads: 64, kv_heads: 8, head_dim: 64, qkv_bias: true, o_bias: true, sinks: true}
sliding_window: {size: 128, pattern: [sliding, full]}
moe: {routed_experts: 32, experts_per_token: 4, expert_ffn: 2880, router_bias: true, expert_bias: true}
)";

}  // namespace

TEST(SlidingWindow, YamlSaysWhatTheConfigSays) {
  const auto yaml = load_model_yaml_string(kGptOss20bYaml, "gpt-oss-20b.yaml");
  const auto json = load_model(std::string(K3SIM_SOURCE_DIR) + "/tests/model/fixtures/gpt-oss-20b/config.json");
  ASSERT_EQ(yaml.layers.size(), json.layers.size());
  for (std::size_t i = 0; i < yaml.layers.size(); ++i) EXPECT_EQ(yaml.layers[i].window, json.layers[i].window) << i;
  const auto a = summarize(yaml, 4096), b = summarize(json, 4096);
  EXPECT_DOUBLE_EQ(a.total_params, b.total_params);
  EXPECT_DOUBLE_EQ(a.activated_params, b.activated_params);
  EXPECT_DOUBLE_EQ(a.training_flops_per_token, b.training_flops_per_token);
  EXPECT_DOUBLE_EQ(a.state_bytes_per_sequence, b.state_bytes_per_sequence);
}

TEST(SlidingWindow, ReducesAttentionFlops) {
  auto spec = load_model_yaml_string(kGptOss20bYaml, "g.yaml");
  MicroBatch mb;
  mb.seq = 4096;
  auto core_flops = [&](int layer) {
    for (const auto& op : layer_ops(spec, layer, mb).ops) if (op.kind == OpKind::AttentionCore) return op.fwd_flops;
    return 0.0;
  };
  // 2 x heads x (qk + v) x pairs: layer 1 slides (window 128), layer 2 sees everything.
  EXPECT_DOUBLE_EQ(core_flops(0), 2.0 * 64 * 128 * (4096.0 * 128 - 128.0 * 128 / 2));
  EXPECT_DOUBLE_EQ(core_flops(1), 2.0 * 64 * 128 * (4096.0 * 4096 / 2));
}

TEST(SlidingWindow, YamlErrors) {
  auto expect_error = [](const std::string& extra, const std::string& fragment) {
    try {
      load_model_yaml_string(std::string(kGptOss20bYaml).replace(std::string(kGptOss20bYaml).find("sliding_window"), 53, extra), "g.yaml");
      ADD_FAILURE() << "no InputError for " << extra;
    } catch (const k3::core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("sliding_window: {size: 128, pattern: [sliding, local]}", "local");
  expect_error("sliding_window: {size: 128, layers: [1], pattern: [full]}", "not both");
  expect_error("sliding_window: {size: 128, layers: [25]}                ", "past the last layer");
  expect_error("sliding_window: {size: 0, pattern: [sliding, full]}      ", "sliding_window.size");
}
