// Activation bytes kept per layer under each recomputation choice, derived by hand for one dense layer
// (Llama-3-405B) and one MoE layer (DeepSeek-V3 layer 4), one sequence of 4096 or 8192 tokens in BF16.
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "model/memory.hpp"
#include "model/model_spec.hpp"

namespace k3::model {
namespace {

double kept(const OpBlock& b, RecomputeModules modules) { return activation_memory({b}, {false, modules}).kept; }

TEST(Recompute, DenseLayerByModule) {
  // Llama-3-405B layer, s = 8192, h = 16384, 128 heads and 8 KV heads of 128, SwiGLU 53248 = 3.25 h, BF16.
  // Kept without recomputation, in units of s h bytes:
  //   attention norm input 2, QKV input 2, attention core q 2 + k,v 2 x 8 x 128 x 2 / h = 1/4 + output 2
  //   + fp32 log-sum-exp 128 x 4 / h = 1/32, o_proj input 2, FFN norm input 2, W1W2 input 2,
  //   SwiGLU input 2 x 3.25 x 2 = 13, W3 input 3.25 x 2 = 6.5                 = 33.78125 s h
  MicroBatch mb;
  mb.seq = 8192;
  const auto layer = layer_ops(load_model("llama3-405b"), 0, mb);
  const double sh = 8192.0 * 16384;
  EXPECT_DOUBLE_EQ(kept(layer, 0), 33.78125 * sh);
  // norm: both norms' inputs go, 2 + 2.
  EXPECT_DOUBLE_EQ(kept(layer, kRecomputeNorm), (33.78125 - 4) * sh);
  // core_attn: q, k, v, output and log-sum-exp, 4.28125.
  EXPECT_DOUBLE_EQ(kept(layer, kRecomputeCoreAttn), (33.78125 - 4.28125) * sh);
  // mlp: the MLP keeps its input (W1W2's, 2) and drops the SwiGLU and W3 inputs, 13 + 6.5.
  EXPECT_DOUBLE_EQ(kept(layer, kRecomputeMlp), (33.78125 - 19.5) * sh);
  // selective = core_attn + norm + activation (the SwiGLU input; RoPE keeps nothing): 33.78125 - 4.28125 - 4 - 13.
  EXPECT_DOUBLE_EQ(kept(layer, RecomputePolicy::selective().modules), 12.5 * sh);
  // While the MLP recomputes its dropped 19.5 s h are live again; the extra forward is W1W2, SwiGLU, W3:
  // 2 s h (2 x 3.25 h) + 8 FLOPs x s x 6.5 h + 2 s (3.25 h) h.
  const auto mlp = activation_memory({layer}, {false, kRecomputeMlp});
  EXPECT_DOUBLE_EQ(mlp.recompute_peak, 19.5 * sh);
  const double h = 16384, s = 8192;
  EXPECT_DOUBLE_EQ(recompute_flops({layer}, {false, kRecomputeMlp}),
                   2 * s * 6.5 * h * h + 8 * s * 6.5 * h + 2 * s * 3.25 * h * h);
  // Full keeps only the layer's input, 2 s h, and re-materialises everything, 33.78125 s h.
  const auto full = activation_memory({layer}, RecomputePolicy::whole_blocks());
  EXPECT_DOUBLE_EQ(full.kept, 2 * sh);
  EXPECT_DOUBLE_EQ(full.recompute_peak, 33.78125 * sh);
}

TEST(Recompute, MoeLayerByModule) {
  // DeepSeek-V3 layer 4 (the first MoE layer), s = 4096 tokens, d = 7168, top-8 of 256 experts of 2048,
  // one shared expert of 2048, MLA with 128 heads (q/k 192, v 128), BF16 saved inputs. Per token, bytes:
  //   routed up input 8 x 7168 x 2 = 114688, routed SwiGLU input 8 x 4096 x 2 = 65536, routed down input
  //   8 x 2048 x 2 = 32768; shared SwiGLU input 4096 x 2 = 8192, shared down input 2048 x 2 = 4096; the
  //   router keeps the MoE input, 7168 x 2 = 14336 (the shared up-projection reads the same tensor).
  //   MLA core's q 128 x 192 x 2 = 49152 and k, v 128 x (192 + 128) x 2 = 81920.
  MicroBatch mb;
  mb.seq = 4096;
  const auto layer = layer_ops(load_model("deepseek-v3"), 3, mb);
  ASSERT_TRUE(has_expert_dispatch(layer));
  const double none = kept(layer, 0), T = 4096;
  // moe: everything after the router goes, the router's input stays.
  EXPECT_DOUBLE_EQ(none - kept(layer, kRecomputeMoe), T * (114688 + 65536 + 32768 + 8192 + 4096));
  // moe_act: the routed and the shared SwiGLU inputs.
  EXPECT_DOUBLE_EQ(none - kept(layer, kRecomputeMoeAct), T * (65536 + 8192));
  // shared_experts: the shared SwiGLU and down inputs.
  EXPECT_DOUBLE_EQ(none - kept(layer, kRecomputeSharedExperts), T * (8192 + 4096));
  // mla_up_proj: q, k, v come back from the latents, which the up-projections keep.
  EXPECT_DOUBLE_EQ(none - kept(layer, kRecomputeMlaUpProj), T * (49152 + 81920));
  // moe recomputes the routed GEMMs: at least 3 x 2 x 8 x 7168 x 2048 FLOPs per token of routed GEMMs
  // (up is gate + up: 2 of the 3 matrices).
  EXPECT_GE(recompute_flops({layer}, {false, kRecomputeMoe}), T * 2 * 8 * 7168.0 * 2048 * 3);
  // Modules together drop the union once: moe already holds moe_act and shared_experts.
  EXPECT_DOUBLE_EQ(kept(layer, kRecomputeMoe | kRecomputeMoeAct | kRecomputeSharedExperts), kept(layer, kRecomputeMoe));
}

TEST(Recompute, NamesPrintAndRoundTrip) {
  EXPECT_EQ(to_string(RecomputePolicy::none()), "none");
  EXPECT_EQ(to_string(RecomputePolicy::selective()), "selective");
  EXPECT_EQ(to_string(RecomputePolicy::whole_blocks()), "full");
  EXPECT_EQ(to_string(RecomputePolicy{false, kRecomputeNorm | kRecomputeMoeAct}), "norm+moe_act");
  RecomputeModules all = 0;
  for (const auto& m : recompute_modules()) {
    EXPECT_FALSE(m.description.empty()) << m.name;
    EXPECT_EQ(all & m.bit, 0u) << m.name;  // one bit each
    all |= m.bit;
  }
  EXPECT_EQ(core::find_entry(recompute_modules(), "moe")->bit, kRecomputeMoe);
}

}  // namespace
}  // namespace k3::model
