#include "model/hf_families.hpp"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.hpp"

namespace k3::model {

namespace {

using nlohmann::json;
using KeySet = std::set<std::string>;
using Config = HfConfigReader;

Activation activation_of(const Config& c) {
  const json* v = c.find("hidden_act");
  if (!v) return Activation::SwiGLU;
  const auto name = v->is_string() ? v->get<std::string>() : v->dump();
  if (name == "silu" || name == "swiglu") return Activation::SwiGLU;
  if (name == "situ" || name == "situ_glu") return Activation::SiTUGLU;
  if (name == "gelu" || name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::GeLU;
  throw core::InputError(c.where("hidden_act"), "unknown activation " + v->dump(), "silu, situ or gelu");
}

// Canonical (YAML) key -> config.json key, for error locations raised by check_spec.
const std::map<std::string, std::string>& json_names() {
  static const std::map<std::string, std::string> m{
      {"hidden", "hidden_size"}, {"vocab", "vocab_size"}, {"layers", "num_hidden_layers"},
      {"mla.heads", "num_attention_heads"}, {"mla.kv_lora_rank", "kv_lora_rank"}, {"mla.q_lora_rank", "q_lora_rank"},
      {"mla.qk_nope_head_dim", "qk_nope_head_dim"}, {"mla.qk_rope_head_dim", "qk_rope_head_dim"},
      {"mla.v_head_dim", "v_head_dim"}, {"kda.heads", "num_heads"}, {"kda.head_dim", "head_dim"},
      {"kda.short_conv_kernel", "short_conv_kernel_size"}, {"gqa.heads", "num_attention_heads"},
      {"gqa.kv_heads", "num_key_value_heads"}, {"gqa.head_dim", "head_dim"},
      {"gqa.rope_fraction", "partial_rotary_factor"}, {"dense_ffn.intermediate", "intermediate_size"},
      {"moe.routed_experts", "n_routed_experts"}, {"moe.experts_per_token", "num_experts_per_tok"},
      {"moe.shared_experts", "n_shared_experts"}, {"moe.expert_ffn", "moe_intermediate_size"},
      {"moe.shared_expert_ffn", "moe_intermediate_size"}, {"moe.latent_dim", "routed_expert_hidden_size"},
      {"mtp_layers", "num_nextn_predict_layers"}, {"attn_res_block_size", "attn_res_block_size"},
      {"sliding_window.size", "sliding_window"}, {"attention_chunk.size", "attention_chunk_size"}};
  return m;
}

// The file's own spelling of a canonical key: the first of the family's alternatives that the file uses.
KeyLocator locator(const Config& c) {
  return [&c](const std::string& canonical) {
    static const std::map<std::string, std::vector<std::string>> alternatives{
        {"moe.routed_experts", {"num_experts", "num_local_experts"}},
        {"moe.experts_per_token", {"num_experts_per_token", "experts_per_token"}},
        {"moe.shared_experts", {"num_shared_experts"}},
        {"moe.expert_ffn", {"intermediate_size"}},
        {"moe.shared_expert_ffn", {"shared_expert_intermediate_size", "intermediate_size"}},
        {"dense_ffn.intermediate", {"intermediate_size_mlp"}}};
    auto it = json_names().find(canonical);
    const std::string main = it != json_names().end() ? it->second : canonical;
    if (c.line_of(main) == 0) {
      auto alt = alternatives.find(canonical);
      if (alt != alternatives.end()) {
        for (const auto& a : alt->second) if (c.line_of(a) > 0) return c.where(a);
      }
    }
    return c.where(main);
  };
}

// ---- Families -------------------------------------------------------------------------------------------

// GQA attention from the Llama-style keys; head_dim defaults to hidden / heads.
void read_gqa(const Config& c, ModelSpec& s) {
  const auto heads = c.integer("num_attention_heads");
  s.gqa.heads = static_cast<int>(heads);
  s.gqa.kv_heads = static_cast<int>(c.integer_or("num_key_value_heads", heads));
  s.gqa.head_dim = c.find("head_dim") ? static_cast<int>(c.integer("head_dim"))
                                      : head_dim_from_hidden(locator(c), "gqa.heads", heads, s.hidden);
  s.mtp_attention = AttentionKind::GQA;
  for (auto& l : s.layers) l.attention = AttentionKind::GQA;
}

// Expert count, top-k and widths under the several spellings (num_experts / num_local_experts /
// n_routed_experts; num_experts_per_tok / experts_per_token). Two spellings present must agree.
void read_routed(const Config& c, ModelSpec& s, const char* ffn_key) {
  s.moe.routed_experts = static_cast<int>(c.integer_any({"n_routed_experts", "num_experts", "num_local_experts"}));
  s.moe.experts_per_token = static_cast<int>(c.integer_any({"num_experts_per_tok", "num_experts_per_token", "experts_per_token"}));
  if (c.find("num_experts_per_tok") && c.find("experts_per_token") &&
      c.integer("num_experts_per_tok") != c.integer("experts_per_token")) {
    throw core::InputError(c.where("experts_per_token"),
                           fmt::format("{} disagrees with num_experts_per_tok {}", c.integer("experts_per_token"),
                                       c.integer("num_experts_per_tok")),
                           "the same top-k in both keys");
  }
  s.moe.expert_ffn = static_cast<int>(c.integer(ffn_key));
  s.moe.activation = activation_of(c);
}

// HF layer_types ("sliding_attention" / "full_attention"): the sliding ones get sliding_window.
void read_layer_types(const Config& c, ModelSpec& s) {
  if (!c.find("layer_types")) return;
  const auto n = static_cast<long long>(s.layers.size());
  const auto types = c.string_per_layer("layer_types", n, {"sliding_attention", "full_attention"});
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] != "sliding_attention") continue;
    if (!c.find("sliding_window")) {
      throw core::InputError(c.where("layer_types"), fmt::format("layer {} is sliding but sliding_window is not set", i),
                             "a sliding_window with sliding_attention layers");
    }
    s.layers[i].window = static_cast<int>(c.integer("sliding_window"));
  }
}

// Qwen MoE families: MoE where (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers (0-based).
void read_qwen_ffn_layers(const Config& c, ModelSpec& s) {
  const auto n = static_cast<long long>(s.layers.size());
  const auto step = c.integer_or("decoder_sparse_step", 1);
  if (step < 1) throw core::InputError(c.where("decoder_sparse_step"), "must be at least 1", "an integer >= 1");
  std::set<long long> dense;
  if (c.find("mlp_only_layers")) {
    for (auto i : c.layer_list("mlp_only_layers", n, false)) dense.insert(i);
  }
  for (long long i = 0; i < n; ++i) {
    s.layers[static_cast<std::size_t>(i)].ffn =
        (!dense.contains(i) && (i + 1) % step == 0) ? FfnKind::MoE : FfnKind::Dense;
  }
  if (s.count_layers(FfnKind::Dense) > 0) s.dense_ffn = {static_cast<int>(c.integer("intermediate_size")), activation_of(c)};
}

// Qwen2/Qwen3: with use_sliding_window, layers from max_window_layers on (0-based) slide (transformers'
// Qwen2 rule).
void read_qwen_layers(const Config& c, ModelSpec& s) {
  read_qwen_ffn_layers(c, s);
  const auto n = static_cast<long long>(s.layers.size());
  if (c.find("layer_types")) {
    read_layer_types(c, s);
  } else if (c.boolean_or("use_sliding_window", false)) {
    const auto from = c.integer_or("max_window_layers", 0);
    for (long long i = std::max(0LL, from); i < n; ++i) s.layers[static_cast<std::size_t>(i)].window = static_cast<int>(c.integer("sliding_window"));
  }
}

// Qwen2-MoE's shared expert: one of shared_expert_intermediate_size, scaled by a sigmoid gate.
void read_gated_shared_expert(const Config& c, ModelSpec& s) {
  const auto shared = c.integer_or("shared_expert_intermediate_size", 0);
  s.moe.shared_experts = shared > 0 ? 1 : 0;
  s.moe.shared_expert_ffn = static_cast<int>(shared);
  s.moe.shared_expert_gate = shared > 0;  // sigmoid(Linear(hidden, 1)) scales the shared expert
}

void read_llama(const Config& c, ModelSpec& s) {
  read_gqa(c, s);
  s.gqa.qkv_bias = s.gqa.o_bias = c.boolean_or("attention_bias", false);
  c.require_false("mlp_bias", "k3sim's dense FFN has no biases");
  s.dense_ffn = {static_cast<int>(c.integer("intermediate_size")), activation_of(c)};
  for (auto& l : s.layers) l.ffn = FfnKind::Dense;
}

void read_qwen2_moe(const Config& c, ModelSpec& s) {
  read_gqa(c, s);
  s.gqa.qkv_bias = true;  // transformers Qwen2MoeAttention: q/k/v with bias, o_proj without
  read_routed(c, s, "moe_intermediate_size");
  s.moe.router_bias = false;
  read_gated_shared_expert(c, s);
  read_qwen_layers(c, s);
}

void read_qwen3_moe(const Config& c, ModelSpec& s) {
  read_gqa(c, s);
  s.gqa.qkv_bias = s.gqa.o_bias = c.boolean_or("attention_bias", false);
  s.gqa.qk_norm = true;  // Qwen3MoeAttention q_norm / k_norm over head_dim
  read_routed(c, s, "moe_intermediate_size");
  s.moe.router_bias = false;
  read_qwen_layers(c, s);
}

// Qwen3-Next (transformers Qwen3NextConfig): Gated DeltaNet layers and gated softmax attention, the latter
// where layer_types says "full_attention" or else every full_attention_interval-th layer; Qwen2-MoE's
// gated shared expert. The linear layers' q and k heads (linear_num_key_heads) each serve
// linear_num_value_heads / linear_num_key_heads value heads; every head has one decay (A_log, dt_bias,
// a from in_proj_ba) and the output is gated by z, a full-width projection.
void read_qwen3_next(const Config& c, ModelSpec& s) {
  read_gqa(c, s);
  s.gqa.qkv_bias = s.gqa.o_bias = c.boolean_or("attention_bias", false);
  s.gqa.qk_norm = true;      // Qwen3NextAttention q_norm / k_norm over head_dim
  s.gqa.output_gate = true;  // q_proj yields the query and a gate of the same width
  s.gqa.rope_fraction = c.number_or("partial_rotary_factor", 1.0);
  c.require_false("use_sliding_window", "Qwen3-Next's attention layers see the whole prefix");
  read_routed(c, s, "moe_intermediate_size");
  s.moe.router_bias = false;
  read_gated_shared_expert(c, s);
  read_qwen_ffn_layers(c, s);
  const auto key_dim = c.integer("linear_key_head_dim");
  const auto value_dim = c.integer("linear_value_head_dim");
  if (key_dim != value_dim) {
    throw core::InputError(c.where("linear_key_head_dim"),
                           fmt::format("{} differs from linear_value_head_dim {}", key_dim, value_dim),
                           "equal key and value head widths (k3sim's delta-rule state is d x d per head)");
  }
  s.kda.heads = static_cast<int>(c.integer("linear_num_value_heads"));
  s.kda.key_heads = static_cast<int>(c.integer("linear_num_key_heads"));
  s.kda.head_dim = static_cast<int>(value_dim);
  s.kda.short_conv_kernel = static_cast<int>(c.integer("linear_conv_kernel_dim"));
  s.kda.output_gate = KdaOutputGate::Full;
  s.kda.decay_gate = KdaDecayGate::Head;
  const auto n = static_cast<long long>(s.layers.size());
  if (c.find("layer_types")) {
    const auto types = c.string_per_layer("layer_types", n, {"linear_attention", "full_attention"});
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] == "linear_attention") s.layers[i].attention = AttentionKind::KDA;
    }
    return;
  }
  const auto interval = c.integer_or("full_attention_interval", 4);  // Qwen3NextConfig's default
  if (interval < 1) throw core::InputError(c.where("full_attention_interval"), "must be at least 1", "an integer >= 1");
  for (long long i = 0; i < n; ++i) {
    if ((i + 1) % interval != 0) s.layers[static_cast<std::size_t>(i)].attention = AttentionKind::KDA;
  }
}

// MiniMax-M2 (transformers MiniMaxM2Config): softmax GQA in every layer (attn_type_list all 1; 0 would be
// MiniMax-01's lightning attention), q and k normed across all heads (qk_norm_type "per_layer"), RoPE on
// rotary_dim of each head's dims, every layer MoE with a sigmoid router and a correction bias, no shared
// expert. Each of num_mtp_modules MTP modules is taken as mtp_transformer_layers main-model layers (the
// config says no more, and the released checkpoint has no MTP weights to count).
void read_minimax_m2(const Config& c, ModelSpec& s) {
  read_gqa(c, s);
  s.gqa.qkv_bias = s.gqa.o_bias = c.boolean_or("attention_bias", false);
  s.gqa.qk_norm = c.boolean_or("use_qk_norm", false);
  if (const json* t = c.find("qk_norm_type")) {
    const std::string type = t->is_string() ? t->get<std::string>() : t->dump();
    if (type != "per_layer" && type != "per_head") {
      throw core::InputError(c.where("qk_norm_type"), "unknown value " + t->dump(), "per_layer or per_head");
    }
    s.gqa.qk_norm_across_heads = type == "per_layer";
  }
  if (c.find("rotary_dim")) {
    const auto rotary = c.integer("rotary_dim");
    if (rotary <= 0 || rotary > s.gqa.head_dim) {
      throw core::InputError(c.where("rotary_dim"), fmt::format("must be 1 to head_dim {}, got {}", s.gqa.head_dim, rotary),
                             fmt::format("an integer 1 to {}", s.gqa.head_dim));
    }
    s.gqa.rope_fraction = static_cast<double>(rotary) / s.gqa.head_dim;
  } else {
    s.gqa.rope_fraction = c.number_or("partial_rotary_factor", 1.0);
  }
  read_routed(c, s, "intermediate_size");
  s.moe.router_bias = c.boolean_or("use_routing_bias", false);
  if (c.integer_or("shared_intermediate_size", 0) != 0) {
    throw core::InputError(c.where("shared_intermediate_size"), "a MiniMax shared expert is not modelled",
                           "0 (MiniMax-M2 has none)");
  }
  const auto n = static_cast<long long>(s.layers.size());
  if (const json* list = c.find("attn_type_list")) {
    const json& types = *list;
    if (!types.is_array() || static_cast<long long>(types.size()) != n) {
      throw core::InputError(c.where("attn_type_list"), "expected one entry per layer", fmt::format("{} entries", n));
    }
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] != 1) {
        throw core::InputError(c.where("attn_type_list"),
                               fmt::format("layer {} is {}, MiniMax-01's lightning attention, which k3sim does not model", i, types[i].dump()),
                               "1 (softmax attention) for every layer");
      }
    }
  }
  for (auto& l : s.layers) l.ffn = FfnKind::MoE;
  if (c.boolean_or("use_mtp", false)) {
    s.mtp_layers = static_cast<int>(c.integer_or("num_mtp_modules", 0) * c.integer_or("mtp_transformer_layers", 1));
  }
}

void read_mixtral(const Config& c, ModelSpec& s) {
  read_gqa(c, s);
  read_routed(c, s, "intermediate_size");
  s.moe.router_bias = false;
  for (auto& l : s.layers) {
    l.ffn = FfnKind::MoE;
    if (c.find("sliding_window")) l.window = static_cast<int>(c.integer("sliding_window"));  // Mistral: every layer
  }
}

void read_gpt_oss(const Config& c, ModelSpec& s) {
  read_gqa(c, s);
  s.gqa.qkv_bias = s.gqa.o_bias = c.boolean_or("attention_bias", false);
  s.gqa.sinks = true;  // GptOssAttention.sinks: one learned logit per head
  read_routed(c, s, "intermediate_size");
  s.moe.router_bias = true;   // GptOssTopKRouter: Linear(hidden, E) with bias
  s.moe.expert_bias = true;   // gate_up_proj_bias [E, 2 x ffn], down_proj_bias [E, hidden]
  for (auto& l : s.layers) l.ffn = FfnKind::MoE;
  read_layer_types(c, s);
}

// Llama 4 (text_config): MoE layers every interleave_moe_layer_step (or the moe_layers list, 0-based),
// one shared expert of intermediate_size beside the routed ones, dense layers of intermediate_size_mlp;
// RoPE layers (all but every no_rope_layer_interval-th, or no_rope_layers[i] == 1) use chunked attention.
void read_llama4(const Config& c, ModelSpec& s) {
  read_gqa(c, s);
  s.gqa.qkv_bias = s.gqa.o_bias = c.boolean_or("attention_bias", false);
  read_routed(c, s, "intermediate_size");
  s.moe.router_bias = false;
  s.moe.shared_experts = 1;
  s.moe.shared_expert_ffn = s.moe.expert_ffn;
  const auto n = static_cast<long long>(s.layers.size());
  std::set<long long> moe;
  if (c.find("moe_layers")) {
    for (auto i : c.layer_list("moe_layers", n, false)) moe.insert(i);
  } else {
    const auto step = c.integer_or("interleave_moe_layer_step", 1);
    if (step < 1) throw core::InputError(c.where("interleave_moe_layer_step"), "must be at least 1", "an integer >= 1");
    for (long long i = step - 1; i < n; i += step) moe.insert(i);
  }
  const auto chunk = c.integer_or("attention_chunk_size", 0);
  const auto interval = c.integer_or("no_rope_layer_interval", 4);
  const json* no_rope = c.find("no_rope_layers");
  if (no_rope && no_rope->is_array() && no_rope->empty()) no_rope = nullptr;  // transformers: the interval rule
  if (no_rope && (!no_rope->is_array() || static_cast<long long>(no_rope->size()) != n)) {
    throw core::InputError(c.where("no_rope_layers"), "expected one entry per layer", fmt::format("{} entries of 0 or 1", n));
  }
  for (long long i = 0; i < n; ++i) {
    auto& l = s.layers[static_cast<std::size_t>(i)];
    l.ffn = moe.contains(i) ? FfnKind::MoE : FfnKind::Dense;
    const bool rope = no_rope ? (*no_rope)[static_cast<std::size_t>(i)] != 0 : interval < 1 || (i + 1) % interval != 0;
    if (chunk > 0 && rope) l.attention_chunk = static_cast<int>(chunk);
  }
  if (s.count_layers(FfnKind::Dense) > 0) s.dense_ffn = {static_cast<int>(c.integer("intermediate_size_mlp")), activation_of(c)};
}

void read_glm4_moe(const Config& c, ModelSpec& s) {
  read_gqa(c, s);
  s.gqa.qkv_bias = c.boolean_or("attention_bias", false);  // Glm4MoeAttention: o_proj has no bias
  s.gqa.qk_norm = c.boolean_or("use_qk_norm", false);
  s.gqa.rope_fraction = c.number_or("partial_rotary_factor", 1.0);
  read_routed(c, s, "moe_intermediate_size");
  s.moe.router_bias = true;  // e_score_correction_bias, one per expert
  s.moe.shared_experts = static_cast<int>(c.integer_or("n_shared_experts", 0));
  s.moe.shared_expert_ffn = s.moe.expert_ffn;
  s.dense_ffn = {static_cast<int>(c.integer("intermediate_size")), activation_of(c)};
  const auto first_dense = c.integer_or("first_k_dense_replace", 0);
  if (first_dense < 0) throw core::InputError(c.where("first_k_dense_replace"), "must not be negative", "an integer >= 0");
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    s.layers[i].ffn = static_cast<long long>(i) < first_dense ? FfnKind::Dense : FfnKind::MoE;
  }
  s.mtp_layers = static_cast<int>(c.integer_or("num_nextn_predict_layers", 0));
}

void read_kda_layers(const Config& c, ModelSpec& s, bool k3);

// DeepSeek-V3 layout (MLA + MoE after first_k_dense_replace, every moe_layer_freq-th), Kimi K2, Kimi
// Linear and K3 (KDA layers from linear_attn_config).
void read_mla_family(const Config& c, ModelSpec& s, const std::string& type) {
  c.require_false("attention_bias", "k3sim's MLA has no projection biases");
  s.mla.heads = static_cast<int>(c.integer("num_attention_heads"));
  s.mla.q_lora_rank = static_cast<int>(c.integer_or("q_lora_rank", 0));
  s.mla.kv_lora_rank = static_cast<int>(c.integer("kv_lora_rank"));
  s.mla.qk_nope_head_dim = static_cast<int>(c.integer("qk_nope_head_dim"));
  s.mla.qk_rope_head_dim = static_cast<int>(c.integer("qk_rope_head_dim"));
  s.mla.v_head_dim = static_cast<int>(c.integer("v_head_dim"));
  s.mla.rope = !c.boolean_or("mla_use_nope", type == "kimi_k3");
  s.mla.output_gate = c.boolean_or("mla_use_output_gate", false);
  s.dense_ffn = {static_cast<int>(c.integer("intermediate_size")), activation_of(c)};
  read_routed(c, s, "moe_intermediate_size");
  s.moe.shared_experts = static_cast<int>(c.integer_any({"n_shared_experts", "num_shared_experts"}, 0));
  s.moe.shared_expert_ffn = s.moe.expert_ffn;
  s.moe.latent_dim = static_cast<int>(c.integer_or("routed_expert_hidden_size", 0));
  if (s.moe.latent_dim == s.hidden) s.moe.latent_dim = 0;  // experts at full width: no latent projections
  s.moe.latent_norm = s.moe.latent_dim > 0;
  s.mtp_layers = static_cast<int>(c.integer_or("num_nextn_predict_layers", 0));
  s.attn_res_block_size = static_cast<int>(c.integer_or("attn_res_block_size", 0));
  const auto first_dense = c.integer_or("first_k_dense_replace", 0);
  if (first_dense < 0) throw core::InputError(c.where("first_k_dense_replace"), "must not be negative", "an integer >= 0");
  const auto freq = c.integer_or("moe_layer_freq", 1);
  if (freq < 1) throw core::InputError(c.where("moe_layer_freq"), "must be at least 1", "an integer >= 1");
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    const auto idx = static_cast<long long>(i);
    s.layers[i].attention = AttentionKind::MLA;
    s.layers[i].ffn = (idx >= first_dense && idx % freq == 0) ? FfnKind::MoE : FfnKind::Dense;  // DeepseekV3 rule
  }
  if (c.find("linear_attn_config")) read_kda_layers(c, s, type == "kimi_k3");
}

void read_kda_layers(const Config& c, ModelSpec& s, bool k3) {
  const json& lin = *c.find("linear_attn_config");
  if (!lin.is_object()) throw core::InputError(c.where("linear_attn_config"), "expected an object", "a JSON object");
  for (const auto& [key, value] : lin.items()) {
    static const KeySet known{"kda_layers", "full_attn_layers", "num_heads", "head_dim", "short_conv_kernel_size"};
    if (!known.contains(key)) {
      throw core::InputError(c.where(key), "unknown key in linear_attn_config",
                             "kda_layers, full_attn_layers, num_heads, head_dim or short_conv_kernel_size");
    }
  }
  s.kda.heads = static_cast<int>(c.integer_in(lin, "num_heads"));
  s.kda.head_dim = static_cast<int>(c.integer_in(lin, "head_dim"));
  s.kda.short_conv_kernel = static_cast<int>(c.integer_in(lin, "short_conv_kernel_size"));
  // Kimi Linear gates the KDA output with a low-rank g_a/g_b pair; K3 with a full g_proj (DESIGN.md).
  s.kda.output_gate = k3 ? KdaOutputGate::Full : KdaOutputGate::LowRank;
  const auto n = static_cast<long long>(s.layers.size());
  std::vector<int> marked(s.layers.size(), 0);
  for (const char* key : {"kda_layers", "full_attn_layers"}) {
    for (auto i : c.layer_list_in(lin, key, n, true)) {
      s.layers[static_cast<std::size_t>(i)].attention = std::string(key) == "kda_layers" ? AttentionKind::KDA : AttentionKind::MLA;
      ++marked[static_cast<std::size_t>(i)];
    }
  }
  for (std::size_t i = 0; i < marked.size(); ++i) {
    if (marked[i] != 1) {
      throw core::InputError(c.where("kda_layers"), fmt::format("layer {} is listed {} times across kda_layers and full_attn_layers", i + 1, marked[i]),
                             "every layer in exactly one of the two lists");
    }
  }
}


// Keys every family reads.
const KeySet kCommon{"model_type", "hidden_size", "vocab_size", "num_hidden_layers", "num_attention_heads",
                     "tie_word_embeddings", "max_position_embeddings", "hidden_act"};
const KeySet kGqa{"num_key_value_heads", "head_dim", "attention_bias"};
const KeySet kQwen{"intermediate_size", "moe_intermediate_size", "num_experts", "num_experts_per_tok",
                   "decoder_sparse_step", "mlp_only_layers", "use_sliding_window", "sliding_window",
                   "max_window_layers", "layer_types"};
const KeySet kMla{"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "mla_use_nope",
                  "mla_use_output_gate", "intermediate_size", "moe_intermediate_size", "n_routed_experts", "num_experts",
                  "num_experts_per_tok", "num_experts_per_token", "n_shared_experts", "num_shared_experts",
                  "routed_expert_hidden_size", "num_nextn_predict_layers", "attn_res_block_size",
                  "first_k_dense_replace", "moe_layer_freq", "linear_attn_config", "attention_bias"};
// MLA configs carry these too: num_key_value_heads equals the head count and has no separate meaning
// in MLA; the K3 settings below are fixed in k3sim's K3 layout (DESIGN.md) rather than read.
const KeySet kMlaIgnores{"num_key_value_heads", "head_dim", "routed_expert_norm", "situ_beta", "softcap_beta"};

KeySet join(std::initializer_list<KeySet> sets) {
  KeySet out;
  for (const auto& s : sets) out.insert(s.begin(), s.end());
  return out;
}

}  // namespace

const std::vector<HfFamily>& hf_families() {
  auto mla = [](const Config& c, ModelSpec& s) { read_mla_family(c, s, c.scope().at("model_type").get<std::string>()); };
  static const std::vector<HfFamily> f{
      {"deepseek_v3", join({kCommon, kMla}), kMlaIgnores, mla,
       "MLA, dense then MoE layers, shared experts, MTP (DeepSeek-V3, R1)"},
      {"kimi_k2", join({kCommon, kMla}), kMlaIgnores, mla,
       "DeepSeek-V3's layout (Kimi K2)"},
      {"kimi_linear", join({kCommon, kMla}), kMlaIgnores, mla,
       "KDA layers with MLA every few, low-rank output gate (Kimi Linear)"},
      {"kimi_k3", join({kCommon, kMla}), kMlaIgnores, mla,
       "KDA + gated NoPE MLA, Stable LatentMoE, AttnRes (K3)"},
      {"llama", join({kCommon, kGqa, {"intermediate_size", "mlp_bias"}}), {}, read_llama,
       "dense GQA transformer (Llama 2, 3)"},
      {"qwen2_moe", join({kCommon, kGqa, kQwen, {"shared_expert_intermediate_size"}}), {"use_mrope"}, read_qwen2_moe,
       "GQA with q/k/v biases, MoE with a gated shared expert (Qwen1.5-MoE, Qwen2-MoE)"},
      {"qwen3_moe", join({kCommon, kGqa, kQwen}), {}, read_qwen3_moe,
       "GQA with q/k norms, MoE without shared experts (Qwen3 MoE)"},
      {"mixtral", join({kCommon, kGqa, {"intermediate_size", "num_local_experts", "num_experts_per_tok", "sliding_window"}}),
       {}, read_mixtral,
       "GQA, top-2 MoE, sliding window (Mixtral)"},
      {"gpt_oss", join({kCommon, kGqa, {"intermediate_size", "num_local_experts", "num_experts_per_tok",
                                        "experts_per_token", "layer_types", "sliding_window"}}),
       {}, read_gpt_oss,
       "GQA with sinks and biases, alternating sliding layers, MoE with biases (gpt-oss)"},
      // Llama 4's use_qk_norm is a weightless L2 norm: no parameters and negligible work.
      {"llama4", join({kCommon, kGqa, {"intermediate_size", "intermediate_size_mlp", "num_local_experts",
                                       "num_experts_per_tok", "interleave_moe_layer_step", "moe_layers",
                                       "attention_chunk_size", "no_rope_layer_interval", "no_rope_layers"}}),
       {"use_qk_norm"}, read_llama4,
       "text_config: chunked attention on RoPE layers, MoE with a shared expert every few layers (Llama 4)"},
      {"glm4_moe", join({kCommon, kGqa, {"intermediate_size", "moe_intermediate_size", "n_routed_experts",
                                         "num_experts_per_tok", "n_shared_experts", "first_k_dense_replace",
                                         "partial_rotary_factor", "use_qk_norm", "num_nextn_predict_layers"}}),
       {}, read_glm4_moe,
       "GQA with partial RoPE, dense then MoE layers, shared experts, MTP (GLM-4.5)"},
      {"qwen3_next", join({kCommon, kGqa, kQwen, {"shared_expert_intermediate_size", "partial_rotary_factor",
                                                  "full_attention_interval", "linear_conv_kernel_dim",
                                                  "linear_key_head_dim", "linear_value_head_dim",
                                                  "linear_num_key_heads", "linear_num_value_heads"}}),
       {}, read_qwen3_next,
       "Gated DeltaNet with gated softmax attention every few layers, MoE with a gated shared expert (Qwen3-Next)"},
      {"minimax_m2", join({kCommon, kGqa, {"intermediate_size", "num_local_experts", "num_experts_per_tok",
                                           "use_qk_norm", "qk_norm_type", "rotary_dim", "partial_rotary_factor",
                                           "use_routing_bias", "shared_intermediate_size", "attn_type_list",
                                           "use_mtp", "num_mtp_modules", "mtp_transformer_layers"}}),
       {}, read_minimax_m2,
       "GQA with q/k norms across heads and partial RoPE, MoE with a sigmoid router, MTP modules (MiniMax-M2)"},
  };
  return f;
}

KeyLocator hf_key_locator(const HfConfigReader& c) { return locator(c); }

}  // namespace k3::model
