#pragma once
// Per-layer operators of a ModelSpec for one micro-batch (sequences x seq tokens): shapes, forward FLOPs,
// backward FLOPs split into dgrad (B, activation gradients) and wgrad (W, weight gradients, which DualPipe
// and zero-bubble schedules move around), HBM bytes, weight bytes and activation bytes kept for backward.
//
// Conventions (documented once here, relied on by totals, memory and the step simulator):
// - A multiply-add is 2 FLOPs. GEMM [m x k] * [k x n]: fwd 2mnk, dgrad 2mnk, wgrad 2mnk.
// - Attention core counts QK^T and PV: fwd 2 * heads * (qk_dim + v_dim) * pairs, pairs = seq^2 / 2 per sequence
//   when causal (half the score matrix, DeepSeek's convention), seq^2 when not. Backward = 2.5 x fwd, all dgrad:
//   the work a flash-attention backward does (five matmuls to the forward's two, recomputing the scores;
//   FlashAttention's benchmark convention, in which its measured backward rates are stated). Model FLOPs for MFU
//   keep the published convention, backward = 2 x forward (training_model_flops()).
//   A sliding window W < seq: each query sees min(position, W) keys, pairs = seq W - W^2 / 2 (causal; the
//   same continuous convention, equal to seq^2 / 2 at W = seq), seq W non-causal. Chunks of C tokens: each
//   chunk is causal on its own, pairs = sum over chunks of len^2 / 2 (len^2 non-causal).
// - KDA chunkwise scan (arXiv:2510.26692 eq. 13-14): fwd (6 d^2 + 3 C d + C^2) per head per token; bwd 2 x fwd.
// - "model FLOPs" (model_flops = true) are GEMMs, router, attention core and KDA scan: what MFU counts.
//   Elementwise ops, norms and embedding lookups carry their own small FLOPs with model_flops = false.
// - Routed-expert ops (routed = true) are built for a uniform load: every FLOP and activation byte scales
//   linearly with tokens_per_expert, so an imbalanced load scales them with scale_routed().
// - Communication points (dispatch, combine) carry bytes per token and are not costed here.
#include <string>
#include <variant>
#include <vector>

#include "model/model_spec.hpp"
#include "model/recompute.hpp"
#include "core/units.hpp"

namespace k3::model {

// Attention backward FLOPs over forward FLOPs (the conventions above: flash attention's five matmuls to two).
inline constexpr double kAttentionBackwardOverForwardFlops = 2.5;

enum class OpKind {
  DenseGemm,      // m = tokens, n = output features, k = input features
  ExpertGemm,     // grouped GEMM over routed experts
  AttentionCore,  // softmax attention (MLA or GQA), flash-style
  KdaChunkScan,   // KDA chunkwise delta-rule scan
  Elementwise,    // activation, gating, rope, short conv, AttnRes mixing, loss
  Norm,           // RMSNorm
  Router,         // router logits GEMM + sigmoid + top-k
  Embedding,      // embedding lookup (gather)
  Communication,  // dispatch / combine of routed tokens: not costed here
};
const char* to_string(OpKind k);

struct GemmShape { double m = 0, n = 0, k = 0; };
struct ExpertGemmShape { int experts = 0; double tokens_per_expert = 0; double n = 0, k = 0; };
struct AttentionShape {
  AttentionKind kind = AttentionKind::MLA;
  int heads = 0, kv_heads = 0, qk_dim = 0, v_dim = 0;
  double seq = 0, sequences = 0;
  bool causal = true;
  double window = 0;  // sliding window in tokens, 0 = none
  double chunk = 0;   // attention chunk in tokens, 0 = none
};
// Query-key pairs of one sequence (see the conventions above).
double attention_pairs(double seq, bool causal, double window, double chunk);
struct ScanShape { int heads = 0, d_k = 0, d_v = 0, chunk = 0; double tokens = 0; };
struct ElementwiseShape { double elements = 0; double flops_per_element = 0; };
struct CommShape {
  double copies_per_token = 0;      // top-k copies before any dedup
  double elements_per_copy = 0;     // latent_dim, or hidden without LatentMoE
  double bytes_per_element = 0;     // FP8 dispatch, BF16 combine (DeepSeek-V3 practice)
  double bytes_per_token() const { return copies_per_token * elements_per_copy * bytes_per_element; }
};
using OpShape = std::variant<GemmShape, ExpertGemmShape, AttentionShape, ScanShape, ElementwiseShape, CommShape>;

struct Op {
  std::string name;  // e.g. "q_b_proj", "routed_up", "dispatch"
  OpKind kind = OpKind::Elementwise;
  OpShape shape;
  bool routed = false;           // scales with tokens routed to experts
  bool model_flops = false;      // counted in training FLOPs (MFU convention)
  // The recomputation modules this op belongs to (model/recompute.hpp), and those it is the entry of:
  // what it keeps (the module's input) stays kept when such a module is recomputed.
  RecomputeModules recompute_modules = 0;
  RecomputeModules recompute_entry = 0;
  bool muon_matrix = false;      // a hidden weight matrix (Muon-optimised); others use AdamW
  // An attention projection whose weight is `weight_heads` per-head blocks, along its output features, or
  // along its input features when heads_on_input (o_proj): what per-head Muon orthogonalises separately.
  int weight_heads = 0;
  bool heads_on_input = false;
  // A GEMM that stays in BF16 when the linear layers run in FP8: DeepSeek-V3's recipe (arXiv:2412.19437
  // section 3.3.1) keeps the output head and the MoE gating in their original precision.
  bool keeps_bf16 = false;
  // The forward input is already FP8: with an FP8 dispatch each token is quantized once before it is sent,
  // so the routed up-projection does not quantize its (top-k times larger) input again.
  bool input_arrives_fp8 = false;
  core::Flops fwd_flops = 0, dgrad_flops = 0, wgrad_flops = 0;
  core::Bytes read_bytes = 0, write_bytes = 0;  // forward HBM traffic, rough (inputs + weights, outputs)
  // A data-movement op's backward traffic where it is not twice the forward's (the elementwise rule): a permute's
  // backward moves the gradient once (read and write); 0: the rule applies.
  core::Bytes backward_bytes = 0;
  double params = 0;                            // parameters owned by this op (0 for shared/tied weights)
  double activated_params = 0;                  // of those, the ones one token uses (k/E for routed)
  core::Bytes weight_bytes = 0;                 // bytes of weights read in forward
  core::Bytes saved_bytes = 0;                  // activations kept for backward without recomputation
  core::Bytes saved_qkv_bytes = 0;              // attention core: of saved_bytes, q, k and v (see recompute.hpp)
  core::Bytes comm_bytes = 0;                   // Communication ops: bytes per micro-batch leaving ranks
  core::Flops bwd_flops() const { return dgrad_flops + wgrad_flops; }
  // Forward and backward FLOPs as model-FLOP (MFU) conventions count them: what the GPU does, except that attention's
  // backward counts 2 x its forward (Megatron-LM's and PaLM's formulas) rather than the 2.5 x it executes.
  core::Flops training_model_flops() const {
    return kind == OpKind::AttentionCore ? 3 * fwd_flops : fwd_flops + bwd_flops();
  }
};

// Multiplies a routed op's per-expert load by `load_factor` (1 = uniform): FLOPs, bytes and shape scale.
Op scale_routed(const Op& op, double load_factor);

enum class BlockRole { Embedding, Layer, Head, Mtp };
struct OpBlock {
  BlockRole role = BlockRole::Layer;
  int layer = 0;       // 1-based layer number for Layer blocks, MTP depth for Mtp blocks, 0 otherwise
  std::string kind;    // "KDA+MoE", "MLA+dense", "embedding", "lm_head", "mtp"
  std::vector<Op> ops;
  core::Bytes input_bytes = 0;  // the residual stream entering the block (kept under full recomputation)
};

// A block with a routed-expert all-to-all (its MoE layer dispatches tokens to experts).
bool has_expert_dispatch(const OpBlock& b);

struct Dtypes {
  double weight_bytes = 2;      // BF16 weights
  double activation_bytes = 2;  // BF16 activations
  double dispatch_bytes = 1;    // FP8 dispatch (DeepSeek-V3)
  double combine_bytes = 2;     // BF16 combine
  // Bytes per element of a linear layer's input kept for its backward pass: BF16, or FP8 with one fp32
  // scale per 128 elements when the linear layers run in FP8 (DeepSeek-V3, arXiv:2412.19437 section
  // 3.3.3, "cache the activations in FP8 format for the backward pass of the Linear operator").
  double saved_linear_input_bytes = 2;
};

struct MicroBatch {
  double sequences = 1;
  double seq = 4096;
  bool causal = true;
  Dtypes dtypes;
  double tokens() const { return sequences * seq; }
};

// Every block in execution order: embedding, layers 1..N, final norm + LM head (+ loss), MTP blocks.
std::vector<OpBlock> build_ops(const ModelSpec& spec, const MicroBatch& mb);
// One decoder layer (0-based index into spec.layers).
OpBlock layer_ops(const ModelSpec& spec, int layer_index, const MicroBatch& mb);
// "KDA+MoE" style label of a layer.
std::string layer_kind(const ModelSpec& spec, const LayerSpec& l);

}  // namespace k3::model
