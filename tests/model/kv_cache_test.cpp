#include <gtest/gtest.h>

#include "model/kv_cache.hpp"
#include "model/model_spec.hpp"
#include "core/error.hpp"
#include "tests/model/csv.hpp"

using namespace k3::model;

// Acceptance: shared/validation/kv-cache-per-token.csv exactly. Qwen2.5-72B is not a preset: 80 layers,
// 8 kv heads of 128 -> 80 x 8 x 128 x 2 x 2 B = 327,680.
TEST(KvCache, MatchesPublishedPerTokenExactly) {
  const auto qwen = load_model_yaml_string(
      "name: qwen2.5-72b\nhidden: 8192\nvocab: 152064\nlayers: 80\nfull_attention: gqa\n"
      "gqa: {heads: 64, kv_heads: 8, head_dim: 128}\ndense_ffn: {intermediate: 29568}\n", "<qwen>");
  const std::map<std::string, ModelSpec> models{{"deepseek-v3", load_model("deepseek-v3")},
                                                {"kimi-k2", load_model("kimi-k2")},
                                                {"llama3.1-405b", load_model("llama3-405b")},
                                                {"qwen2.5-72b", qwen}};
  const auto rows = k3::test::read_validation_csv("kv-cache-per-token.csv");
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& r : rows) {
    EXPECT_EQ(kv_cache(models.at(r.at("model"))).bytes_per_token, std::stod(r.at("bytes_per_token"))) << r.at("model");
  }
}

TEST(KvCache, K3CacheAndState) {
  const auto kv = kv_cache(load_model("k3"));
  // 24 MLA layers x (512 + 64) x 2 B.
  EXPECT_EQ(kv.bytes_per_token, 27648);
  EXPECT_EQ(kv.cache_layers, 24);
  EXPECT_EQ(kv.state_layers, 69);
  // 69 x 96 x 128 x 128 x 4 B = 69 x 6 MiB; conv state 69 x 3 (kernel - 1) x 3 x 12288 x 2 B = 69 x 221,184.
  EXPECT_EQ(kv.recurrent_state_bytes_per_sequence, 69 * 6.0 * 1024 * 1024);
  EXPECT_EQ(kv.conv_state_bytes_per_sequence, 69 * 221184.0);
  EXPECT_EQ(kv.state_bytes_per_sequence, 69 * (6.0 * 1024 * 1024 + 221184));
}

TEST(KvCache, AttentionAlternativesOfTheK3Notes) {
  const auto k3 = load_model("k3");
  // GQA8 128+128: 8 x (128 + 128) x 2 B = 4096 B per layer, 3.6x MLA's 1152 ("more than three times").
  const auto gqa8 = kv_cache(with_full_attention_as_gqa(k3, 8, 128, "gqa8"));
  EXPECT_EQ(gqa8.bytes_per_token_per_attention_layer, 4096);
  EXPECT_EQ(gqa8.bytes_per_token, 24 * 4096.0);
  // MFA 256+256 (MQA): 1 x 512 x 2 B = 1024 B per layer, "no larger than MLA's".
  const auto mfa = kv_cache(with_full_attention_as_gqa(k3, 1, 256, "mfa"));
  EXPECT_EQ(mfa.bytes_per_token_per_attention_layer, 1024);
  EXPECT_LT(mfa.bytes_per_token_per_attention_layer, 1152);
  EXPECT_EQ(mfa.state_bytes_per_sequence, kv_cache(k3).state_bytes_per_sequence);  // KDA layers untouched
}

TEST(KvCache, BudgetByHand) {
  const auto k3 = load_model("k3");
  const GpuMemory h200{"H200-SXM", 141e9, "hardware.csv"};  // topologies/gpu_types.yaml H200-SXM
  // 2.779483e12 params x 2 B / 64 GPUs = 86.86 GB weights per GPU; 141 GB x 0.9 = 126.9 GB usable;
  // free 40.04 GB. One 1M-token sequence: 1,048,576 x 27,648 + 449,372,160 = 29,440,868,352 B, / 64 GPUs
  // = 460.0 MB per GPU -> 87 sequences.
  const double params = 2779483128416.0;
  const auto b = kv_budget(k3, params, 1048576, h200, 64, 2, 0.1);
  EXPECT_DOUBLE_EQ(b.bytes_per_sequence, 1048576.0 * 27648 + 449372160);
  EXPECT_DOUBLE_EQ(b.free_bytes_per_gpu, 141e9 * 0.9 - params * 2 / 64);
  EXPECT_EQ(b.max_batch, 87);
}
