// The YAML preset format (model/presets/*.yaml). Top-level keys:
//   name, source, hidden, vocab, tie_word_embeddings, layers, first_k_dense_replace,
//   full_attention (mla | gqa), full_attention_layers (1-based list; only with kda, the others are KDA),
//   mla {heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim, rope, output_gate},
//   kda {heads, head_dim, short_conv_kernel, output_gate (full | low_rank), chunk, key_heads (q and k heads,
//        default heads), decay_gate (channel: KDA | head: Gated DeltaNet, default channel)},
//   gqa {heads, kv_heads, head_dim (default hidden / heads; heads x head_dim may differ from hidden),
//        qkv_bias, o_bias (biases on the q/k/v and the output projections, default false),
//        qk_norm (per-head RMSNorm of q and k, default false), sinks (one learned sink logit per head,
//        default false), rope_fraction (share of head dims RoPE rotates, 0 < f <= 1, default 1),
//        qk_norm_across_heads (the q and k norms have one weight per channel of all heads, default false),
//        output_gate (sigmoid gate on the attention output, Qwen3-Next, default false)},
//   sliding_window {size, layers | pattern}: softmax-attention layers that see only the last `size` tokens
//        (causal window: a query at position p attends to min(p, size) keys; the KV cache of such a layer
//        holds at most `size` tokens). `layers`: 1-based layer numbers; `pattern`: a list of sliding | full
//        repeated from layer 1 ([sliding, full] alternates, layer 1 sliding); neither: every softmax layer,
//   attention_chunk {size, layers | pattern}: chunked local attention (Llama 4): each query sees the keys of
//        its own `size`-token chunk up to itself; pattern entries chunked | full,
//   dense_ffn {intermediate, activation (swiglu | situ_glu | gelu)},
//   moe {routed_experts, experts_per_token, shared_experts, expert_ffn, shared_expert_ffn, latent_dim,
//        latent_norm, router_bias, activation, expert_bias (biases on each routed expert's up and down
//        projections, default false), shared_expert_gate (sigmoid Linear(hidden, 1) gate on the shared
//        experts, default false)},
//   mtp_layers, attn_res_block_size, max_context,
//   published {total_params, activated_params, count_includes_mtp, activated_includes_embedding (whether the
//        activated figure counts the input embedding table, default false), source}.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/model_spec.hpp"
#include "model/spec_checks.hpp"
#include "core/yaml_input.hpp"

namespace k3::model {

namespace {

class Reader {
 public:
  explicit Reader(const core::YamlValue& root) : root_(root) {}

  int positive(const core::YamlValue& map, const std::string& key, const std::string& prefix) {
    auto v = map.at(key);
    note(prefix + key, v);
    return static_cast<int>(v.as_positive_int());
  }
  int non_negative_or(const core::YamlValue& map, const std::string& key, const std::string& prefix, int fallback) {
    auto v = map.find(key);
    if (!v) return fallback;
    note(prefix + key, *v);
    return static_cast<int>(v->as_non_negative_int());
  }
  bool bool_or(const core::YamlValue& map, const std::string& key, const std::string& prefix, bool fallback) {
    auto v = map.find(key);
    if (!v) return fallback;
    note(prefix + key, *v);
    return v->as_bool();
  }
  Activation activation_or(const core::YamlValue& map, const std::string& prefix, Activation fallback) {
    auto v = map.find("activation");
    if (!v) return fallback;
    note(prefix + "activation", *v);
    const auto a = v->as_enum({"swiglu", "situ_glu", "gelu"});
    return a == "swiglu" ? Activation::SwiGLU : a == "situ_glu" ? Activation::SiTUGLU : Activation::GeLU;
  }
  void note(const std::string& key, const core::YamlValue& v) { where_[key] = v.where(); }
  core::InputLocation where(const std::string& key) const {
    auto it = where_.find(key);
    if (it != where_.end()) return it->second;
    return {root_.file(), key, 0};
  }

 private:
  const core::YamlValue& root_;
  std::map<std::string, core::InputLocation> where_;
};

// `sliding_window` / `attention_chunk`: the bound each layer gets (0 = none), from `size` and either a list
// of 1-based `layers`, a repeating `pattern` of `word` | full, or neither (every softmax-attention layer).
std::vector<int> read_bounds(const core::YamlValue& root, const std::string& key, const std::string& word,
                             const std::vector<LayerSpec>& layers, Reader& r) {
  std::vector<int> out(layers.size(), 0);
  auto b = root.find(key);
  if (!b) return out;
  b->allow_only({"size", "layers", "pattern"});
  const int size = r.positive(*b, "size", key + ".");
  if (b->has("layers") && b->has("pattern")) b->at("pattern").fail("give layers or pattern, not both", "one of them");
  const auto n = static_cast<std::int64_t>(layers.size());
  std::vector<bool> on(layers.size(), !b->has("layers") && !b->has("pattern"));
  if (auto list = b->find("layers")) {
    for (const auto& item : list->items()) {
      const auto idx = item.as_positive_int();
      if (idx > n) item.fail("layer " + std::to_string(idx) + " is past the last layer", "1 to " + std::to_string(n));
      if (layers[static_cast<std::size_t>(idx - 1)].attention == AttentionKind::KDA) {
        item.fail("layer " + std::to_string(idx) + " is a KDA layer, which has no softmax attention to bound",
                  "MLA or GQA layers");
      }
      on[static_cast<std::size_t>(idx - 1)] = true;
    }
  }
  if (auto p = b->find("pattern")) {
    std::vector<bool> unit;
    for (const auto& item : p->items()) unit.push_back(item.as_enum({word, "full"}) == word);
    if (unit.empty()) p->fail("empty pattern", "a list of " + word + " | full, repeated from layer 1");
    for (std::size_t i = 0; i < on.size(); ++i) on[i] = unit[i % unit.size()];
  }
  for (std::size_t i = 0; i < on.size(); ++i) {
    if (on[i] && layers[i].attention != AttentionKind::KDA) out[i] = size;
  }
  return out;
}

ModelSpec read(const core::YamlValue& root) {
  root.allow_only({"name", "source", "hidden", "vocab", "tie_word_embeddings", "layers", "first_k_dense_replace",
                   "full_attention", "full_attention_layers", "mla", "kda", "gqa", "sliding_window",
                   "attention_chunk", "dense_ffn", "moe", "mtp_layers", "attn_res_block_size", "max_context",
                   "published"});
  Reader r(root);
  ModelSpec s;
  s.name = root.at("name").as_string();
  s.source = root.string_or("source", root.file());
  s.hidden = r.positive(root, "hidden", "");
  s.vocab = r.positive(root, "vocab", "");
  s.tie_word_embeddings = r.bool_or(root, "tie_word_embeddings", "", false);
  const int n_layers = r.positive(root, "layers", "");
  const bool has_moe = root.has("moe");
  const int first_dense = r.non_negative_or(root, "first_k_dense_replace", "", has_moe ? 0 : n_layers);
  const auto full_kind_v = root.at("full_attention");
  const auto full_kind = full_kind_v.as_enum({"mla", "gqa"}) == "mla" ? AttentionKind::MLA : AttentionKind::GQA;
  const bool has_kda = root.has("kda");

  std::vector<bool> is_full(static_cast<std::size_t>(n_layers), !has_kda);
  if (has_kda) {
    for (const auto& item : root.at("full_attention_layers").items()) {
      const auto idx = item.as_positive_int();
      if (idx > n_layers) item.fail("layer " + std::to_string(idx) + " is past the last layer",
                                    "1 to " + std::to_string(n_layers));
      is_full[static_cast<std::size_t>(idx - 1)] = true;
    }
  } else if (root.has("full_attention_layers")) {
    root.at("full_attention_layers").fail("only meaningful with a kda section", "omit it, or add kda");
  }
  for (int i = 0; i < n_layers; ++i) {
    LayerSpec l;
    l.attention = is_full[static_cast<std::size_t>(i)] ? full_kind : AttentionKind::KDA;
    l.ffn = (has_moe && i >= first_dense) ? FfnKind::MoE : FfnKind::Dense;
    s.layers.push_back(l);
  }
  s.mtp_attention = full_kind;
  const auto windows = read_bounds(root, "sliding_window", "sliding", s.layers, r);
  const auto chunks = read_bounds(root, "attention_chunk", "chunked", s.layers, r);
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    s.layers[i].window = windows[i];
    s.layers[i].attention_chunk = chunks[i];
  }

  if (auto m = root.find("mla")) {
    m->allow_only({"heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
                   "rope", "output_gate"});
    s.mla.heads = r.positive(*m, "heads", "mla.");
    s.mla.q_lora_rank = r.non_negative_or(*m, "q_lora_rank", "mla.", 0);
    s.mla.kv_lora_rank = r.positive(*m, "kv_lora_rank", "mla.");
    s.mla.qk_nope_head_dim = r.positive(*m, "qk_nope_head_dim", "mla.");
    s.mla.qk_rope_head_dim = r.non_negative_or(*m, "qk_rope_head_dim", "mla.", 0);
    s.mla.v_head_dim = r.positive(*m, "v_head_dim", "mla.");
    s.mla.rope = r.bool_or(*m, "rope", "mla.", true);
    s.mla.output_gate = r.bool_or(*m, "output_gate", "mla.", false);
  } else if (full_kind == AttentionKind::MLA) {
    full_kind_v.fail("full_attention is mla but there is no mla section", "add mla: {...}");
  }
  if (has_kda) {
    auto k = root.at("kda");
    k.allow_only({"heads", "head_dim", "short_conv_kernel", "output_gate", "chunk", "key_heads", "decay_gate"});
    s.kda.heads = r.positive(k, "heads", "kda.");
    s.kda.head_dim = r.positive(k, "head_dim", "kda.");
    s.kda.short_conv_kernel = r.positive(k, "short_conv_kernel", "kda.");
    s.kda.chunk = r.non_negative_or(k, "chunk", "kda.", 64);
    if (auto g = k.find("output_gate")) {
      s.kda.output_gate = g->as_enum({"full", "low_rank"}) == "full" ? KdaOutputGate::Full : KdaOutputGate::LowRank;
    }
    s.kda.key_heads = r.non_negative_or(k, "key_heads", "kda.", 0);
    if (auto g = k.find("decay_gate")) {
      s.kda.decay_gate = g->as_enum({"channel", "head"}) == "channel" ? KdaDecayGate::Channel : KdaDecayGate::Head;
    }
  }
  if (auto g = root.find("gqa")) {
    g->allow_only({"heads", "kv_heads", "head_dim", "qkv_bias", "o_bias", "qk_norm", "sinks", "rope_fraction",
                   "qk_norm_across_heads", "output_gate"});
    s.gqa.heads = r.positive(*g, "heads", "gqa.");
    s.gqa.kv_heads = r.positive(*g, "kv_heads", "gqa.");
    s.gqa.qkv_bias = r.bool_or(*g, "qkv_bias", "gqa.", false);
    s.gqa.o_bias = r.bool_or(*g, "o_bias", "gqa.", false);
    s.gqa.qk_norm = r.bool_or(*g, "qk_norm", "gqa.", false);
    s.gqa.sinks = r.bool_or(*g, "sinks", "gqa.", false);
    s.gqa.qk_norm_across_heads = r.bool_or(*g, "qk_norm_across_heads", "gqa.", false);
    s.gqa.output_gate = r.bool_or(*g, "output_gate", "gqa.", false);
    if (auto f = g->find("rope_fraction")) {
      r.note("gqa.rope_fraction", *f);
      s.gqa.rope_fraction = f->as_positive();
    }
    if (g->has("head_dim")) {
      s.gqa.head_dim = r.positive(*g, "head_dim", "gqa.");
    } else {
      s.gqa.head_dim = head_dim_from_hidden([&](const std::string& key) { return r.where(key); }, "gqa.heads",
                                            s.gqa.heads, s.hidden);
    }
  } else if (full_kind == AttentionKind::GQA) {
    full_kind_v.fail("full_attention is gqa but there is no gqa section", "add gqa: {...}");
  }
  if (auto d = root.find("dense_ffn")) {
    d->allow_only({"intermediate", "activation"});
    s.dense_ffn.intermediate = r.positive(*d, "intermediate", "dense_ffn.");
    s.dense_ffn.activation = r.activation_or(*d, "dense_ffn.", Activation::SwiGLU);
  } else if (first_dense > 0) {
    root.fail("layers 1 to " + std::to_string(first_dense) + " are dense but there is no dense_ffn section",
              "add dense_ffn: {intermediate: N}");
  }
  if (has_moe) {
    auto m = root.at("moe");
    m.allow_only({"routed_experts", "experts_per_token", "shared_experts", "expert_ffn", "shared_expert_ffn",
                  "latent_dim", "latent_norm", "router_bias", "activation", "expert_bias", "shared_expert_gate"});
    s.moe.routed_experts = r.positive(m, "routed_experts", "moe.");
    s.moe.experts_per_token = r.positive(m, "experts_per_token", "moe.");
    s.moe.shared_experts = r.non_negative_or(m, "shared_experts", "moe.", 0);
    s.moe.expert_ffn = r.positive(m, "expert_ffn", "moe.");
    s.moe.shared_expert_ffn = r.non_negative_or(m, "shared_expert_ffn", "moe.", s.moe.expert_ffn);
    s.moe.latent_dim = r.non_negative_or(m, "latent_dim", "moe.", 0);
    s.moe.latent_norm = r.bool_or(m, "latent_norm", "moe.", s.moe.latent_dim > 0);
    s.moe.router_bias = r.bool_or(m, "router_bias", "moe.", true);
    s.moe.activation = r.activation_or(m, "moe.", Activation::SwiGLU);
    s.moe.expert_bias = r.bool_or(m, "expert_bias", "moe.", false);
    s.moe.shared_expert_gate = r.bool_or(m, "shared_expert_gate", "moe.", false);
  }
  s.mtp_layers = r.non_negative_or(root, "mtp_layers", "", 0);
  s.attn_res_block_size = r.non_negative_or(root, "attn_res_block_size", "", 0);
  if (auto c = root.find("max_context")) s.max_context = static_cast<std::int64_t>(c->as_positive_int());
  if (auto p = root.find("published")) {
    p->allow_only({"total_params", "activated_params", "count_includes_mtp", "activated_includes_embedding", "source"});
    s.published.total_params = p->at("total_params").as_positive();
    s.published.activated_params = p->at("activated_params").as_positive();
    s.published.count_includes_mtp = p->bool_or("count_includes_mtp", false);
    s.published.activated_includes_embedding = p->bool_or("activated_includes_embedding", false);
    s.published.source = p->at("source").as_string();
  }
  check_spec(s, [&](const std::string& key) { return r.where(key); });
  return s;
}

}  // namespace

ModelSpec load_model_yaml(const std::string& path) { return read(core::YamlValue::parse_file(path)); }

ModelSpec load_model_yaml_string(const std::string& text, const std::string& source_name) {
  return read(core::YamlValue::parse_string(text, source_name));
}

}  // namespace k3::model
