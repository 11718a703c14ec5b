// config.json import of the 2025 families issue 49 names: Qwen3-Next (Gated DeltaNet + gated attention),
// MiniMax-M2 and Llama 4 Maverick, each counted by hand and against its publisher's total.
//
// Fixtures (tests/model/fixtures/<name>/config.json) and where their text comes from:
//   qwen3-next-80b-a3b  Qwen/Qwen3-Next-80B-A3B-Instruct config.json, transcribed key for key in a public C++
//                       test of a Qwen3.5 loader (wrapped there around a quantization_config, left out here);
//                       a second public copy (a Rust config test) agrees on every shape key.
//   minimax-m2          MiniMaxAI/MiniMax-M2 config.json as written out in a public vLLM plugin's test of
//                       "the official contract" (shape, routing, MTP and norm keys; its FP8
//                       quantization_config and the rope_parameters spelling of rope_theta left out), with
//                       max_position_embeddings 196608 as in the Go loader fixture that agrees on the rest.
//   llama-4-maverick    meta-llama/Llama-4-Maverick-17B-128E config as mirrored in TensorRT-LLM's Llama 4 test
//                       (LLAMA_4_MAVERICK_TWO_LAYER_CONFIG) with its two marked edits undone: 48 layers, not 2,
//                       and no added no_rope_layer_interval; the vision tower (not counted) left out.
#include <gtest/gtest.h>

#include "model/hf_config.hpp"
#include "model/kv_cache.hpp"
#include "model/model_spec.hpp"
#include "model/ops.hpp"
#include "model/totals.hpp"

#include "tests/model/hf_fixtures.hpp"

using namespace k3::model;
using k3::test::expect_input_error;
using k3::test::hf_fixture;

// Qwen3-Next-80B-A3B: hidden 2048, 48 layers, every 4th gated softmax attention (16 q / 2 kv heads of 256),
// the others Gated DeltaNet (16 q/k heads and 32 v heads of 128, conv 4); 512 experts of 512, top-10, one
// gated shared expert of 512; vocab 151936, untied.
TEST(HfHybridFamilies, Qwen3NextByHand) {
  const auto m = load_model(hf_fixture("qwen3-next-80b-a3b"));
  ASSERT_EQ(m.layers.size(), 48u);
  EXPECT_EQ(m.count_layers(AttentionKind::KDA), 36);
  EXPECT_EQ(m.layers[3].attention, AttentionKind::GQA);
  EXPECT_EQ(m.kda.decay_gate, KdaDecayGate::Head);
  EXPECT_EQ(layer_ops(m, 0, MicroBatch{}).kind, "GDN+MoE");
  // MoE: router 512 x 2048 = 1,048,576; experts 512 x 3 x 512 x 2048 = 1,610,612,736; shared expert
  // 3 x 512 x 2048 = 3,145,728 and its gate 2048. Norms 2 x 2048.
  const double moe = 1048576.0 + 1610612736.0 + 3145728.0 + 2048, norms = 4096;
  // Gated DeltaNet: q, k, v 2048 x (2 x 2048 + 4096) = 16,777,216 (with z, HF's in_proj_qkvz); conv 8192 x 4;
  // a and b 2 x 32 x 2048; A_log and dt_bias 2 x 32; z 4096 x 2048; gated norm 128; out 2048 x 4096.
  const double gdn = 16777216.0 + 32768 + 131072 + 64 + 8388608 + 128 + 8388608;
  EXPECT_DOUBLE_EQ(gdn, 33718464.0);
  EXPECT_DOUBLE_EQ(block_params(layer_ops(m, 0, MicroBatch{})), gdn + moe + norms);
  // Gated attention: q, k, v (16 + 2 x 2) x 256 x 2048; q and k norms 2 x 256; gate 4096 x 2048 (HF's q_proj
  // is 2048 -> 8192, query and gate); o 2048 x 4096.
  const double gated = 10485760.0 + 512 + 8388608 + 8388608;
  EXPECT_DOUBLE_EQ(block_params(layer_ops(m, 3, MicroBatch{})), gated + moe + norms);
  // Total: 36 + 12 layers, embedding and head 2 x 151936 x 2048, final norm: 79,674,391,296.
  const auto t = summarize(m, 4096);
  EXPECT_DOUBLE_EQ(t.total_params, 36 * (gdn + moe + norms) + 12 * (gated + moe + norms) + 2 * 151936.0 * 2048 + 2048);
  // Model card (Qwen/Qwen3-Next-80B-A3B-Instruct): "80B in total and 3B activated", "(Non-Embedding): 79B".
  EXPECT_NEAR(t.total_params / 80e9, 1.0, 0.01);
  EXPECT_NEAR((t.total_params - t.embedding_params) / 79e9, 1.0, 0.01) << t.embedding_params;
  // Activated 3.56B (3.88B with the embedding): Qwen truncates to the stated digit (see QwenFiguresAreTruncated).
  EXPECT_GE(t.activated_params, 3e9);
  EXPECT_LT(t.activated_params_with_embedding, 4e9);
  // State: 36 layers of 32 fp32 128 x 128 states (2 MiB each) and 3 conv taps of 8192 BF16 channels; the 12
  // attention layers cache 2 x 2 x 256 x 2 B = 2 KiB per token each.
  const auto kv = kv_cache(m);
  EXPECT_DOUBLE_EQ(kv.recurrent_state_bytes_per_sequence, 36 * 32 * 128 * 128 * 4.0);
  EXPECT_DOUBLE_EQ(kv.conv_state_bytes_per_sequence, 36 * 3 * 8192 * 2.0);
  EXPECT_DOUBLE_EQ(kv.bytes_per_token, 12 * 2048.0);
}

// MiniMax-M2: hidden 3072, 62 layers of GQA (48 q / 8 kv heads of 128, q and k normed across heads, RoPE on
// 64 of 128 dims) and MoE (256 experts of 1536, top-8, sigmoid router with a bias); vocab 200064, untied.
TEST(HfHybridFamilies, MiniMaxM2ByHand) {
  const auto m = load_model(hf_fixture("minimax-m2"));
  EXPECT_DOUBLE_EQ(m.gqa.rope_fraction, 0.5);
  EXPECT_EQ(m.mtp_layers, 3);  // use_mtp: 3 modules of 1 layer
  // Attention: (48 + 16) x 128 x 3072 = 25,165,824; q norm 6144 and k norm 1024 weights; o 3072 x 6144.
  const double attention = 25165824.0 + 6144 + 1024 + 18874368;
  // MoE: router 256 x 3072 + 256 bias; experts 256 x 3 x 1536 x 3072 = 3,623,878,656. Norms 2 x 3072.
  const double moe = 786432.0 + 256 + 3623878656.0, norms = 6144;
  EXPECT_DOUBLE_EQ(block_params(layer_ops(m, 0, MicroBatch{})), attention + moe + norms);
  // Total without MTP: 62 layers, 2 x 200064 x 3072, final norm = 228,689,764,864 (the card's 230B: -0.6%).
  const auto t = summarize(m, 4096);
  EXPECT_DOUBLE_EQ(t.total_params, 62 * (attention + moe + norms) + 2 * 200064.0 * 3072 + 3072);
  // MiniMax-M2 model card: "230 billion total parameters with 10 billion active parameters".
  EXPECT_NEAR(t.total_params / 230e9, 1.0, 0.01);
  EXPECT_GE(t.activated_params, 10e9);  // 10.42B: the card's figure truncated
  EXPECT_LT(t.activated_params, 11e9);
}

// Llama 4 Maverick: hidden 5120, 48 layers alternating dense (16384) and MoE (128 experts of 8192, top-1, one
// shared expert of 8192), GQA 40 / 8 heads of 128 without qk norm; vocab 202048, untied.
TEST(HfHybridFamilies, Llama4MaverickByHand) {
  const auto m = load_model(hf_fixture("llama-4-maverick"));
  EXPECT_EQ(m.count_layers(FfnKind::MoE), 24);
  EXPECT_EQ(m.layers[0].ffn, FfnKind::Dense);
  EXPECT_EQ(m.layers[1].ffn, FfnKind::MoE);
  // No no_rope_layers: every 4th layer is NoPE with full attention, the other 36 chunked at 8192.
  int chunked = 0;
  for (const auto& l : m.layers) chunked += l.attention_chunk == 8192;
  EXPECT_EQ(chunked, 36);
  EXPECT_EQ(m.layers[3].attention_chunk, 0);
  const double attention = 7168.0 * 5120 + 5120.0 * 5120, norms = 10240;  // q, k, v then o
  const double dense = 3 * 16384.0 * 5120;
  const double moe = 128 * 5120.0 + 128 * 3 * 8192.0 * 5120 + 3 * 8192.0 * 5120;  // router, experts, shared
  EXPECT_DOUBLE_EQ(block_params(layer_ops(m, 0, MicroBatch{})), attention + dense + norms);
  EXPECT_DOUBLE_EQ(block_params(layer_ops(m, 1, MicroBatch{})), attention + moe + norms);
  // 24 of each, 2 x 202048 x 5120 and the final norm: 400,711,848,960.
  const auto t = summarize(m, 4096);
  EXPECT_DOUBLE_EQ(t.total_params, 400711848960.0);
  // Meta's Llama 4 model card: Maverick "17B activated, 400B total" (17.18B with the input embedding).
  EXPECT_NEAR(t.total_params / 400e9, 1.0, 0.01);
  EXPECT_GE(t.activated_params_with_embedding, 17e9);
  EXPECT_LT(t.activated_params_with_embedding, 18e9);
}

TEST(HfHybridFamilies, BadValuesNameTheKey) {
  const std::string base = R"({"model_type": "minimax_m2", "hidden_size": 64, "vocab_size": 100,
    "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "intermediate_size": 32, "num_local_experts": 4, "num_experts_per_tok": 2)";
  expect_input_error([&] { load_hf_config_string(base + R"(, "attn_type_list": [1, 0]})", "m.json"); },
                     {"attn_type_list", "lightning attention", "1 (softmax attention)"});
  expect_input_error([&] { load_hf_config_string(base + R"(, "rotary_dim": 32})", "m.json"); },
                     {"rotary_dim", "1 to 16"});
  expect_input_error([&] { load_hf_config_string(base + R"(, "qk_norm_type": "per_token"})", "m.json"); },
                     {"qk_norm_type", "per_layer or per_head"});
  const std::string next = R"({"model_type": "qwen3_next", "hidden_size": 64, "vocab_size": 100,
    "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2, "linear_conv_kernel_dim": 4,
    "linear_num_value_heads": 4, "linear_value_head_dim": 16, "linear_key_head_dim": 16)";
  expect_input_error([&] { load_hf_config_string(next + R"(, "linear_num_key_heads": 3})", "q.json"); },
                     {"key heads do not divide", "4"});
  expect_input_error(
      [&] { load_hf_config_string(next + R"(, "linear_num_key_heads": 2, "linear_key_head_dim": 8})", "q.json"); },
      {"differs from linear_value_head_dim"});
  // The interval rule: layers 4 and 8 of 8 attend; the rest are Gated DeltaNet with two q/k heads.
  const auto m = load_hf_config_string(next + R"(, "linear_num_key_heads": 2, "full_attention_interval": 2})", "q.json");
  EXPECT_EQ(m.count_layers(AttentionKind::KDA), 2);
  EXPECT_EQ(m.kda.qk_heads(), 2);
}
