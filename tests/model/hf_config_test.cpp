#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "model/hf_config.hpp"
#include "model/model_spec.hpp"
#include "core/error.hpp"

#include "tests/model/hf_fixtures.hpp"

using namespace k3::model;
using k3::test::expect_input_error;
using k3::test::hf_fixture;

namespace {

// Every shape field (names, sources, max_context and published counts are metadata, not shapes).
void expect_same_shapes(const ModelSpec& a, const ModelSpec& b) {
  EXPECT_EQ(a.hidden, b.hidden);
  EXPECT_EQ(a.vocab, b.vocab);
  EXPECT_EQ(a.tie_word_embeddings, b.tie_word_embeddings);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (std::size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(a.layers[i].attention, b.layers[i].attention) << "layer " << i + 1;
    EXPECT_EQ(a.layers[i].ffn, b.layers[i].ffn) << "layer " << i + 1;
  }
  if (a.count_layers(AttentionKind::MLA) > 0) {
    EXPECT_EQ(a.mla.heads, b.mla.heads);
    EXPECT_EQ(a.mla.q_lora_rank, b.mla.q_lora_rank);
    EXPECT_EQ(a.mla.kv_lora_rank, b.mla.kv_lora_rank);
    EXPECT_EQ(a.mla.qk_nope_head_dim, b.mla.qk_nope_head_dim);
    EXPECT_EQ(a.mla.qk_rope_head_dim, b.mla.qk_rope_head_dim);
    EXPECT_EQ(a.mla.v_head_dim, b.mla.v_head_dim);
    EXPECT_EQ(a.mla.rope, b.mla.rope);
    EXPECT_EQ(a.mla.output_gate, b.mla.output_gate);
  }
  if (a.count_layers(AttentionKind::KDA) > 0) {
    EXPECT_EQ(a.kda.heads, b.kda.heads);
    EXPECT_EQ(a.kda.head_dim, b.kda.head_dim);
    EXPECT_EQ(a.kda.short_conv_kernel, b.kda.short_conv_kernel);
    EXPECT_EQ(a.kda.output_gate, b.kda.output_gate);
  }
  if (a.count_layers(AttentionKind::GQA) > 0) {
    EXPECT_EQ(a.gqa.heads, b.gqa.heads);
    EXPECT_EQ(a.gqa.kv_heads, b.gqa.kv_heads);
    EXPECT_EQ(a.gqa.head_dim, b.gqa.head_dim);
  }
  if (a.count_layers(FfnKind::Dense) > 0) {
    EXPECT_EQ(a.dense_ffn.intermediate, b.dense_ffn.intermediate);
    EXPECT_EQ(a.dense_ffn.activation, b.dense_ffn.activation);
  }
  if (a.has_moe()) {
    EXPECT_EQ(a.moe.routed_experts, b.moe.routed_experts);
    EXPECT_EQ(a.moe.experts_per_token, b.moe.experts_per_token);
    EXPECT_EQ(a.moe.shared_experts, b.moe.shared_experts);
    EXPECT_EQ(a.moe.expert_ffn, b.moe.expert_ffn);
    EXPECT_EQ(a.moe.shared_expert_ffn, b.moe.shared_expert_ffn);
    EXPECT_EQ(a.moe.latent_dim, b.moe.latent_dim);
    EXPECT_EQ(a.moe.latent_norm, b.moe.latent_norm);
    EXPECT_EQ(a.moe.activation, b.moe.activation);
  }
  EXPECT_EQ(a.mtp_layers, b.mtp_layers);
  EXPECT_EQ(a.attn_res_block_size, b.attn_res_block_size);
}

}  // namespace

TEST(HfConfig, ImportEqualsPreset) {
  for (const std::string name : {"deepseek-v3", "kimi-k2", "kimi-linear-48b-a3b", "k3", "llama3-405b"}) {
    SCOPED_TRACE(name);
    expect_same_shapes(load_model(hf_fixture(name)), load_model(name));
  }
}

TEST(HfConfig, Errors) {
  expect_input_error([] { load_model("/no/such/config.json"); }, {"/no/such/config.json", "no such file"});
  // Malformed JSON on line 3.
  expect_input_error([] { load_hf_config_string("{\n  \"hidden_size\": 7168,\n  \"vocab_size\": ,\n}", "bad.json"); },
                     {"bad.json:3", "malformed JSON"});
  expect_input_error([] { load_hf_config_string("{\n \"model_type\": \"llama\",\n \"hiden_size\": 4096\n}", "c.json"); },
                     {"c.json:3", "key 'hiden_size'", "unknown key"});
  expect_input_error([] { load_hf_config_string("{\"model_type\": \"mistral\"}", "c.json"); },
                     {"c.json:1", "model_type", "deepseek_v3, kimi_k2, kimi_linear, kimi_k3, llama, qwen2_moe, qwen3_moe, "
                                                "mixtral, gpt_oss, llama4, glm4_moe, qwen3_next or minimax_m2"});
  const std::string llama = "{\n \"model_type\": \"llama\",\n \"hidden_size\": 4096,\n \"vocab_size\": 32000,\n"
                            " \"num_hidden_layers\": 2,\n \"num_attention_heads\": HEADS,\n \"num_key_value_heads\": KV,\n"
                            " \"intermediate_size\": FFN\n}";
  auto make = [&](const std::string& heads, const std::string& kv, const std::string& ffn) {
    auto s = llama;
    s.replace(s.find("HEADS"), 5, heads);
    s.replace(s.find("KV"), 2, kv);
    s.replace(s.find("FFN"), 3, ffn);
    return s;
  };
  EXPECT_EQ(load_hf_config_string(make("32", "8", "11008"), "ok.json").gqa.head_dim, 128);
  // 4096 / 48 is not whole: heads must divide hidden when head_dim is not given.
  expect_input_error([&] { load_hf_config_string(make("48", "8", "11008"), "c.json"); },
                     {"c.json:6", "num_attention_heads", "do not divide hidden size 4096"});
  expect_input_error([&] { load_hf_config_string(make("32", "5", "11008"), "c.json"); },
                     {"c.json:7", "num_key_value_heads", "divides 32"});
  expect_input_error([&] { load_hf_config_string(make("32", "8", "-5"), "c.json"); },
                     {"c.json:8", "intermediate_size", "positive", "integer >= 1"});
  expect_input_error([&] { load_hf_config_string(make("32", "8", "0"), "c.json"); }, {"c.json:8", "intermediate_size"});
}

TEST(HfConfig, TopKAboveExpertsNamesTheKeyAndLine) {
  std::ifstream in(hf_fixture("deepseek-v3"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  text.replace(text.find("\"num_experts_per_tok\": 8"), 24, "\"num_experts_per_tok\": 300");
  // num_experts_per_tok sits on line 12 of the fixture.
  expect_input_error([&] { load_hf_config_string(text, "dsv3.json"); },
                     {"dsv3.json:12", "num_experts_per_tok", "top-300 is more than the 256", "1 to 256"});
}
