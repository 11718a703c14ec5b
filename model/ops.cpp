#include "model/ops.hpp"

#include <algorithm>
#include <cmath>

namespace k3::model {

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::DenseGemm: return "dense_gemm";
    case OpKind::ExpertGemm: return "expert_gemm";
    case OpKind::AttentionCore: return "attention_core";
    case OpKind::KdaChunkScan: return "kda_chunk_scan";
    case OpKind::Elementwise: return "elementwise";
    case OpKind::Norm: return "norm";
    case OpKind::Router: return "router";
    case OpKind::Embedding: return "embedding";
    case OpKind::Communication: return "communication";
  }
  return "?";
}

// Delta-rule layers with one decay per head are Gated DeltaNet ("GDN"), with one per channel KDA.
std::string layer_kind(const ModelSpec& spec, const LayerSpec& l) {
  const bool gdn = l.attention == AttentionKind::KDA && spec.kda.decay_gate == KdaDecayGate::Head;
  return std::string(gdn ? "GDN" : to_string(l.attention)) + "+" + to_string(l.ffn);
}

Op scale_routed(const Op& op, double f) {
  if (!op.routed) return op;
  Op o = op;
  o.fwd_flops *= f;
  o.dgrad_flops *= f;
  o.wgrad_flops *= f;
  o.read_bytes = op.weight_bytes + (op.read_bytes - op.weight_bytes) * f;
  o.write_bytes *= f;
  o.backward_bytes *= f;
  o.saved_bytes *= f;
  o.comm_bytes *= f;
  if (auto* e = std::get_if<ExpertGemmShape>(&o.shape)) e->tokens_per_expert *= f;
  if (auto* e = std::get_if<ElementwiseShape>(&o.shape)) e->elements *= f;
  return o;
}

double attention_pairs(double seq, bool causal, double window, double chunk) {
  if (chunk > 0 && chunk < seq) {
    const double full = std::floor(seq / chunk), rest = seq - full * chunk;
    const double pairs = full * chunk * chunk + rest * rest;
    return causal ? pairs / 2 : pairs;
  }
  if (window > 0 && window < seq) return causal ? seq * window - window * window / 2 : seq * window;
  return causal ? seq * seq / 2 : seq * seq;
}

namespace {

// Approximate FLOPs per element of the elementwise parts (not part of model FLOPs).
constexpr double kNormFlopsPerElement = 4;     // square, sum, scale, weight
constexpr double kGluFlopsPerElement = 8;      // sigmoid, (tanh softcap), products
constexpr double kGeluFlopsPerElement = 8;

class Builder {
 public:
  Builder(const ModelSpec& s, const MicroBatch& mb) : s_(s), mb_(mb), T_(mb.tokens()), a_(mb.dtypes.activation_bytes) {}

  // A GEMM whose weight is [n, k]; `saves_input` false when another op already keeps the same input.
  Op gemm(std::string name, double n, double k, bool saves_input = true, bool owns_weights = true) const {
    Op o;
    o.name = std::move(name);
    o.kind = OpKind::DenseGemm;
    o.shape = GemmShape{T_, n, k};
    o.model_flops = true;
    o.muon_matrix = owns_weights;
    o.fwd_flops = o.dgrad_flops = o.wgrad_flops = 2 * T_ * n * k;
    o.params = o.activated_params = owns_weights ? n * k : 0;
    o.weight_bytes = n * k * mb_.dtypes.weight_bytes;
    o.read_bytes = T_ * k * a_ + o.weight_bytes;
    o.write_bytes = T_ * n * a_;
    o.saved_bytes = saves_input ? T_ * k * mb_.dtypes.saved_linear_input_bytes : 0;
    return o;
  }
  Op norm(std::string name, double width, double rows_per_token = 1) const {
    Op o;
    o.name = std::move(name);
    o.kind = OpKind::Norm;
    const double elements = T_ * rows_per_token * width;
    o.shape = ElementwiseShape{elements, kNormFlopsPerElement};
    o.recompute_modules = kRecomputeNorm;
    o.fwd_flops = kNormFlopsPerElement * elements;
    o.dgrad_flops = 2 * o.fwd_flops;
    o.params = o.activated_params = width;
    o.weight_bytes = width * mb_.dtypes.weight_bytes;
    o.read_bytes = elements * a_ + o.weight_bytes;
    o.write_bytes = elements * a_;
    o.saved_bytes = elements * a_;
    return o;
  }
  Op elementwise(std::string name, double elements, double flops_per_element, double out_elements,
                 bool saves_input = true) const {
    Op o;
    o.name = std::move(name);
    o.kind = OpKind::Elementwise;
    o.shape = ElementwiseShape{elements, flops_per_element};
    o.recompute_modules = kRecomputeActivation;
    o.fwd_flops = flops_per_element * elements;
    o.dgrad_flops = 2 * o.fwd_flops;
    o.read_bytes = elements * a_;
    o.write_bytes = out_elements * a_;
    o.saved_bytes = saves_input ? elements * a_ : 0;
    return o;
  }
  // A bias of `n` elements on a GEMM's output: parameters and weight bytes (its add is fused, no FLOPs).
  Op with_bias(Op o, double n) const {
    o.params += n;
    o.activated_params += n;
    o.weight_bytes += n * mb_.dtypes.weight_bytes;
    o.read_bytes += n * mb_.dtypes.weight_bytes;
    return o;
  }
  // Adds `modules` to the op's recomputation modules, and `entry` to those whose input it keeps.
  static Op in_module(Op o, RecomputeModules modules, RecomputeModules entry = 0) {
    o.recompute_modules |= modules | entry;
    o.recompute_entry |= entry;
    return o;
  }
  // Marks an attention projection as `heads` per-head blocks (see Op::weight_heads).
  static Op per_head(Op o, int heads, bool on_input = false) {
    o.weight_heads = heads;
    o.heads_on_input = on_input;
    return o;
  }
  double glu_matrices(Activation a) const { return a == Activation::GeLU ? 1 : 2; }
  double act_flops(Activation a) const { return a == Activation::GeLU ? kGeluFlopsPerElement : kGluFlopsPerElement; }

  // AttnRes (Attention Residuals, blocks of B layers): each sublayer mixes the completed block summaries,
  // the embedding and the running partial block with a softmax over learned pseudo-query scores.
  void attn_res(std::vector<Op>& ops, int layer_index, const std::string& sub) const {
    if (s_.attn_res_block_size <= 0) return;
    const int done = layer_index / s_.attn_res_block_size;
    const double sources = 1 + done + (layer_index % s_.attn_res_block_size != 0 ? 1 : 0);
    const double d = s_.hidden;
    // Per source: RMSNorm (4d), score dot (2d), weighted sum (2d).
    Op o = elementwise("attn_res_" + sub, T_ * sources * d, 8, T_ * d, false);
    o.params = o.activated_params = d;  // the sublayer's pseudo-query w_l
    o.weight_bytes = d * mb_.dtypes.weight_bytes;
    ops.push_back(o);
  }

  void mla(std::vector<Op>& ops, const LayerSpec& l) const {
    const auto& m = s_.mla;
    const double d = s_.hidden, h = m.heads, qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    if (m.q_lora_rank > 0) {
      ops.push_back(gemm("q_a_proj", m.q_lora_rank, d));
      ops.push_back(norm("q_a_norm", m.q_lora_rank));
      ops.push_back(in_module(per_head(gemm("q_b_proj", h * qk, m.q_lora_rank), m.heads), 0, kRecomputeMlaUpProj));
    } else {
      ops.push_back(per_head(gemm("q_proj", h * qk, d), m.heads));
    }
    ops.push_back(gemm("kv_a_proj", m.kv_lora_rank + m.qk_rope_head_dim, d, false));
    ops.push_back(norm("kv_a_norm", m.kv_lora_rank));
    ops.push_back(
        in_module(per_head(gemm("kv_b_proj", h * (m.qk_nope_head_dim + m.v_head_dim), m.kv_lora_rank), m.heads), 0,
                  kRecomputeMlaUpProj));
    if (m.rope) {
      ops.push_back(in_module(elementwise("rope", T_ * (h + 1) * m.qk_rope_head_dim, 3, T_ * (h + 1) * m.qk_rope_head_dim,
                                          false),
                              kRecomputeMlaUpProj));
    }
    ops.push_back(attention_core(AttentionKind::MLA, m.heads, m.heads, static_cast<int>(qk), m.v_head_dim, l));
    if (m.output_gate) {
      ops.push_back(per_head(gemm("g_proj", h * m.v_head_dim, d, false), m.heads));
      ops.push_back(elementwise("output_gate", 2 * T_ * h * m.v_head_dim, 3, T_ * h * m.v_head_dim));
    }
    ops.push_back(per_head(gemm("o_proj", d, h * m.v_head_dim), m.heads, true));
  }

  // Widths come from heads x head_dim, never from the hidden size: the two differ in Qwen3 and GPT-OSS.
  void gqa(std::vector<Op>& ops, const LayerSpec& l) const {
    const auto& g = s_.gqa;
    const double d = s_.hidden, qkv = (g.heads + 2.0 * g.kv_heads) * g.head_dim;
    Op proj = per_head(gemm("qkv_proj", qkv, d), g.heads + 2 * g.kv_heads);
    ops.push_back(g.qkv_bias ? with_bias(proj, qkv) : proj);
    if (g.qk_norm && g.qk_norm_across_heads) {  // one weight per channel of all heads
      ops.push_back(norm("q_norm", static_cast<double>(g.heads) * g.head_dim));
      ops.push_back(norm("k_norm", static_cast<double>(g.kv_heads) * g.head_dim));
    } else if (g.qk_norm) {  // one head_dim weight each, applied to every head
      ops.push_back(norm("q_norm", g.head_dim, g.heads));
      ops.push_back(norm("k_norm", g.head_dim, g.kv_heads));
    }
    const double rotated = T_ * (g.heads + g.kv_heads) * g.head_dim * g.rope_fraction;
    ops.push_back(elementwise("rope", rotated, 3, rotated, false));
    Op core = attention_core(AttentionKind::GQA, g.heads, g.kv_heads, g.head_dim, g.head_dim, l);
    if (g.sinks) {  // one logit per head joins each softmax denominator: parameters, no GEMM work
      core.params = core.activated_params = g.heads;
      core.weight_bytes = g.heads * mb_.dtypes.weight_bytes;
    }
    ops.push_back(core);
    const double out = static_cast<double>(g.heads) * g.head_dim;
    if (g.output_gate) {  // Qwen3-Next: q_proj's second half, sigmoid(gate) times the attention output
      ops.push_back(per_head(gemm("g_proj", out, d, false), g.heads));
      ops.push_back(elementwise("output_gate", 2 * T_ * out, 3, T_ * out));
    }
    Op o = per_head(gemm("o_proj", d, out), g.heads, true);
    ops.push_back(g.o_bias ? with_bias(o, d) : o);
  }

  Op attention_core(AttentionKind kind, int heads, int kv_heads, int qk, int v, const LayerSpec& l) const {
    Op o;
    o.name = "attention_core";
    o.kind = OpKind::AttentionCore;
    o.shape = AttentionShape{kind, heads, kv_heads, qk, v, mb_.seq, mb_.sequences, mb_.causal,
                             static_cast<double>(l.window), static_cast<double>(l.attention_chunk)};
    o.model_flops = true;
    o.recompute_modules = kRecomputeCoreAttn;
    const double pairs = mb_.sequences * attention_pairs(mb_.seq, mb_.causal, l.window, l.attention_chunk);
    o.fwd_flops = 2.0 * heads * (qk + v) * pairs;
    o.dgrad_flops = kAttentionBackwardOverForwardFlops * o.fwd_flops;
    const double kv_elems = T_ * kv_heads * (qk + v);
    o.read_bytes = (T_ * heads * qk + kv_elems) * a_;
    o.write_bytes = T_ * heads * v * a_;
    // Flash attention keeps q, k, v, the output and the fp32 log-sum-exp per head and token.
    const double qkv_bytes = (T_ * heads * qk + kv_elems) * a_;
    o.saved_bytes = qkv_bytes + T_ * heads * v * a_ + T_ * heads * 4;
    if (kind == AttentionKind::MLA) o.saved_qkv_bytes = qkv_bytes;  // the up-projections' outputs
    return o;
  }

  void kda(std::vector<Op>& ops) const {
    const auto& k = s_.kda;
    const double d = s_.hidden, p = static_cast<double>(k.heads) * k.head_dim, hd = k.head_dim;
    const double pk = static_cast<double>(k.qk_heads()) * k.head_dim, qkv = 2 * pk + p;  // q and k, then v
    ops.push_back(per_head(gemm("qkv_proj", qkv, d), 2 * k.qk_heads() + k.heads));
    Op conv = elementwise("short_conv", T_ * qkv, 2.0 * k.short_conv_kernel + 1, T_ * qkv);
    conv.params = conv.activated_params = qkv * k.short_conv_kernel;
    conv.weight_bytes = conv.params * mb_.dtypes.weight_bytes;
    ops.push_back(conv);
    const bool channel_decay = k.decay_gate == KdaDecayGate::Channel;
    if (channel_decay) {
      ops.push_back(gemm("f_a_proj", hd, d, false));
      ops.push_back(per_head(gemm("f_b_proj", p, hd), k.heads));
    } else {
      ops.push_back(gemm("a_proj", k.heads, d, false));
    }
    ops.push_back(gemm("b_proj", k.heads, d, false));
    Op scan;
    scan.name = "kda_chunk_scan";
    scan.kind = OpKind::KdaChunkScan;
    scan.shape = ScanShape{k.heads, k.head_dim, k.head_dim, k.chunk, T_};
    scan.model_flops = true;
    const double C = k.chunk;
    scan.fwd_flops = T_ * k.heads * (6 * hd * hd + 3 * C * hd + C * C);
    scan.dgrad_flops = 2 * scan.fwd_flops;
    // A_log per head, dt_bias per channel (KDA) or per head (Gated DeltaNet).
    const double decay = channel_decay ? p : k.heads;
    scan.params = scan.activated_params = k.heads + decay;
    scan.weight_bytes = scan.params * 4;
    scan.read_bytes = T_ * (qkv + decay + k.heads) * a_;  // q, k, v, decay, beta
    scan.write_bytes = T_ * p * a_;
    // Saved for backward: q, k, v, gates, and the fp32 chunk-boundary states.
    scan.saved_bytes = T_ * (qkv + decay + k.heads) * a_ + (T_ / C) * k.heads * hd * hd * 4;
    ops.push_back(scan);
    if (k.output_gate == KdaOutputGate::Full) {
      ops.push_back(per_head(gemm("g_proj", p, d, false), k.heads));
    } else {
      ops.push_back(gemm("g_a_proj", hd, d, false));
      ops.push_back(per_head(gemm("g_b_proj", p, hd), k.heads));
    }
    ops.push_back(norm("o_norm_gate", hd, k.heads));  // per-head RMSNorm fused with the sigmoid gate
    ops.push_back(per_head(gemm("o_proj", d, p), k.heads, true));
  }

  void dense_ffn(std::vector<Op>& ops) const {
    const auto& f = s_.dense_ffn;
    const double d = s_.hidden, m = glu_matrices(f.activation);
    ops.push_back(in_module(gemm(m == 2 ? "w1w2_gate_up" : "w1_up", m * f.intermediate, d), 0, kRecomputeMlp));
    ops.push_back(in_module(
        elementwise("activation", T_ * m * f.intermediate, act_flops(f.activation), T_ * f.intermediate), kRecomputeMlp));
    ops.push_back(in_module(gemm("w3_down", d, f.intermediate), kRecomputeMlp));
  }

  Op comm(std::string name, double elements, double bytes_per_element) const {
    Op o;
    o.name = std::move(name);
    o.kind = OpKind::Communication;
    const double k = s_.moe.experts_per_token;
    o.shape = CommShape{k, elements, bytes_per_element};
    o.routed = true;
    o.recompute_modules = kRecomputeMoe;
    o.comm_bytes = T_ * k * elements * bytes_per_element;
    return o;
  }

  void moe(std::vector<Op>& ops) const {
    const auto& m = s_.moe;
    const double d = s_.hidden, E = m.routed_experts, k = m.experts_per_token;
    const double io = m.expert_io_dim(s_.hidden), mats = glu_matrices(m.activation);
    const double routed_tokens = T_ * k;
    Op router = gemm("router", E, d);
    router.kind = OpKind::Router;
    router.muon_matrix = true;
    router.keeps_bf16 = true;
    router.saved_bytes = T_ * d * a_;
    router.params = router.activated_params = E * d + (m.router_bias ? E : 0);
    router.fwd_flops += T_ * E * 4;  // sigmoid, bias add, top-k selection
    router.recompute_entry = router.recompute_modules = kRecomputeMoe;
    const std::size_t first = ops.size();
    ops.push_back(router);
    if (m.latent_dim > 0) ops.push_back(gemm("latent_down_proj", io, d, false));
    ops.push_back(comm("dispatch", io, mb_.dtypes.dispatch_bytes));
    auto expert = [&](std::string name, double n, double kk) {
      Op o;
      o.name = std::move(name);
      o.kind = OpKind::ExpertGemm;
      o.shape = ExpertGemmShape{m.routed_experts, routed_tokens / E, n, kk};
      o.routed = o.model_flops = o.muon_matrix = true;
      o.fwd_flops = o.dgrad_flops = o.wgrad_flops = 2 * routed_tokens * n * kk;
      o.params = E * n * kk;
      o.activated_params = k * n * kk;
      o.weight_bytes = o.params * mb_.dtypes.weight_bytes;
      o.read_bytes = routed_tokens * kk * a_ + o.weight_bytes;
      o.write_bytes = routed_tokens * n * a_;
      o.saved_bytes = routed_tokens * kk * mb_.dtypes.saved_linear_input_bytes;
      return o;
    };
    // Expert biases (GPT-OSS): n per expert, E of them owned, k of them used per token.
    auto biased = [&](Op o, double n) {
      if (!m.expert_bias) return o;
      o.params += E * n;
      o.activated_params += k * n;
      o.weight_bytes += E * n * mb_.dtypes.weight_bytes;
      o.read_bytes += E * n * mb_.dtypes.weight_bytes;
      return o;
    };
    // The received tokens sorted into their local experts' order for the grouped GEMM: Megatron-Core's token
    // dispatchers call `permute` after the all-to-all (flex/DeepEP) or its chunk sort (alltoall), a gather that
    // reads and writes each routed row once in the dispatched dtype; backward scatters the gradient back.
    // Its inverse before the combine is the weighted sum below (unpermute with the routing probabilities).
    Op permute = elementwise("routed_permute", routed_tokens * io, 0, routed_tokens * io, false);
    permute.routed = true;
    permute.read_bytes = permute.write_bytes = routed_tokens * io * mb_.dtypes.dispatch_bytes;
    permute.backward_bytes = 2 * routed_tokens * io * a_;
    ops.push_back(permute);
    Op up = biased(expert("routed_up", mats * m.expert_ffn, io), mats * m.expert_ffn);
    up.input_arrives_fp8 = mb_.dtypes.dispatch_bytes < 2;
    ops.push_back(up);
    Op act = elementwise("routed_activation", routed_tokens * mats * m.expert_ffn, act_flops(m.activation),
                         routed_tokens * m.expert_ffn);
    act.routed = true;
    act.recompute_modules |= kRecomputeMoeAct;
    ops.push_back(act);
    ops.push_back(biased(expert("routed_down", io, m.expert_ffn), io));
    ops.push_back(comm("combine", io, mb_.dtypes.combine_bytes));
    Op sum = elementwise("weighted_sum", routed_tokens * io, 2, T_ * io, false);
    sum.routed = true;
    ops.push_back(sum);
    if (m.latent_dim > 0) {
      if (m.latent_norm) ops.push_back(norm("latent_norm", io));
      ops.push_back(gemm("latent_up_proj", d, io));
    }
    if (m.shared_experts > 0) {
      const double w = static_cast<double>(m.shared_experts) * m.shared_expert_ffn;
      const std::size_t shared = ops.size();
      ops.push_back(in_module(gemm("shared_up", mats * w, d, false), 0, kRecomputeSharedExperts));
      ops.push_back(in_module(elementwise("shared_activation", T_ * mats * w, act_flops(m.activation), T_ * w),
                              kRecomputeMoeAct));
      ops.push_back(gemm("shared_down", d, w));
      if (m.shared_expert_gate) {  // Qwen2-MoE: sigmoid(x W_g) scales the shared output, W_g [1, d]
        Op gate = gemm("shared_expert_gate", 1, d, false);
        gate.muon_matrix = false;  // a vector, not a hidden matrix
        ops.push_back(gate);
        ops.push_back(elementwise("shared_gate_scale", T_ * d, 2, T_ * d, false));
      }
      for (std::size_t i = shared; i < ops.size(); ++i) ops[i].recompute_modules |= kRecomputeSharedExperts;
    }
    // Everything from the router on is the MoE layer (the router keeps its input: the entry).
    for (std::size_t i = first; i < ops.size(); ++i) ops[i].recompute_modules |= kRecomputeMoe;
  }

  OpBlock layer(const LayerSpec& l, int index, BlockRole role, int number) const {
    OpBlock b;
    b.role = role;
    b.layer = number;
    b.kind = role == BlockRole::Mtp ? "mtp" : layer_kind(s_, l);
    b.input_bytes = T_ * s_.hidden * a_;
    auto& ops = b.ops;
    if (role == BlockRole::Mtp) {
      ops.push_back(norm("mtp_enorm", s_.hidden));
      ops.push_back(norm("mtp_hnorm", s_.hidden));
      ops.push_back(gemm("mtp_eh_proj", s_.hidden, 2.0 * s_.hidden));
      b.input_bytes *= 2;
    }
    attn_res(ops, index, "attention");
    ops.push_back(norm("attention_norm", s_.hidden));
    switch (l.attention) {
      case AttentionKind::KDA: kda(ops); break;
      case AttentionKind::MLA: mla(ops, l); break;
      case AttentionKind::GQA: gqa(ops, l); break;
    }
    attn_res(ops, index, "ffn");
    ops.push_back(norm("ffn_norm", s_.hidden));
    if (l.ffn == FfnKind::MoE) moe(ops); else dense_ffn(ops);
    if (role == BlockRole::Mtp) head(ops, "mtp_", false);
    return b;
  }

  // Final norm, LM head and the cross-entropy loss. The MTP head shares the main head's weights.
  void head(std::vector<Op>& ops, const std::string& prefix, bool owns_weights) const {
    ops.push_back(norm(prefix + "final_norm", s_.hidden));
    Op h = gemm(prefix + "lm_head", s_.vocab, s_.hidden, true, owns_weights && !s_.tie_word_embeddings);
    h.muon_matrix = false;  // Moonlight-style Muon keeps embedding and head on AdamW
    h.keeps_bf16 = true;
    h.saved_bytes = T_ * s_.hidden * a_;
    ops.push_back(h);
    Op loss = elementwise(prefix + "cross_entropy", T_ * static_cast<double>(s_.vocab), 5, T_);
    loss.saved_bytes = T_ * static_cast<double>(s_.vocab) * 4;  // fp32 logits kept for the softmax gradient
    ops.push_back(loss);
  }

  OpBlock embedding() const {
    OpBlock b;
    b.role = BlockRole::Embedding;
    b.kind = "embedding";
    Op e;
    e.name = "embedding";
    e.kind = OpKind::Embedding;
    e.shape = ElementwiseShape{T_ * s_.hidden, 0};
    e.params = static_cast<double>(s_.vocab) * s_.hidden;
    e.activated_params = 0;  // by convention activated counts exclude the input embedding table
    e.weight_bytes = T_ * s_.hidden * mb_.dtypes.weight_bytes;  // rows gathered
    e.read_bytes = e.weight_bytes;
    e.write_bytes = T_ * s_.hidden * a_;
    e.wgrad_flops = T_ * s_.hidden;  // scatter-add of the gradient rows
    b.ops.push_back(e);
    return b;
  }

  OpBlock head_block() const {
    OpBlock b;
    b.role = BlockRole::Head;
    b.kind = "lm_head";
    b.input_bytes = T_ * s_.hidden * a_;
    head(b.ops, "", true);
    return b;
  }

 private:
  const ModelSpec& s_;
  const MicroBatch& mb_;
  double T_;
  double a_;
};

}  // namespace

OpBlock layer_ops(const ModelSpec& spec, int index, const MicroBatch& mb) {
  return Builder(spec, mb).layer(spec.layers.at(static_cast<std::size_t>(index)), index, BlockRole::Layer, index + 1);
}

std::vector<OpBlock> build_ops(const ModelSpec& spec, const MicroBatch& mb) {
  Builder b(spec, mb);
  std::vector<OpBlock> blocks;
  blocks.push_back(b.embedding());
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    blocks.push_back(b.layer(spec.layers[i], static_cast<int>(i), BlockRole::Layer, static_cast<int>(i) + 1));
  }
  blocks.push_back(b.head_block());
  const LayerSpec mtp{spec.mtp_attention, spec.has_moe() ? FfnKind::MoE : FfnKind::Dense};
  for (int i = 0; i < spec.mtp_layers; ++i) {
    blocks.push_back(b.layer(mtp, static_cast<int>(spec.layers.size()) + i, BlockRole::Mtp, i + 1));
  }
  return blocks;
}

bool has_expert_dispatch(const OpBlock& b) {
  return std::any_of(b.ops.begin(), b.ops.end(),
                     [](const Op& op) { return op.kind == OpKind::Communication && op.name == "dispatch"; });
}

}  // namespace k3::model
