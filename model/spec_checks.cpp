#include "model/spec_checks.hpp"

#include <fmt/format.h>

namespace k3::model {

namespace {

void positive(const KeyLocator& where, const std::string& key, long long v) {
  if (v <= 0) throw core::InputError(where(key), fmt::format("must be a positive integer, got {}", v), "an integer >= 1");
}

}  // namespace

int head_dim_from_hidden(const KeyLocator& where, const std::string& heads_key, long long heads, long long hidden) {
  positive(where, heads_key, heads);
  if (hidden % heads != 0) {
    throw core::InputError(where(heads_key), fmt::format("{} heads do not divide hidden size {}", heads, hidden),
                           fmt::format("a head count that divides {}, or an explicit head_dim", hidden));
  }
  return static_cast<int>(hidden / heads);
}

void check_spec(const ModelSpec& s, const KeyLocator& where) {
  positive(where, "hidden", s.hidden);
  positive(where, "vocab", s.vocab);
  positive(where, "layers", static_cast<long long>(s.layers.size()));
  const bool any_mla = s.count_layers(AttentionKind::MLA) > 0 || (s.mtp_layers > 0 && s.mtp_attention == AttentionKind::MLA);
  const bool any_gqa = s.count_layers(AttentionKind::GQA) > 0 || (s.mtp_layers > 0 && s.mtp_attention == AttentionKind::GQA);
  if (any_mla) {
    positive(where, "mla.heads", s.mla.heads);
    positive(where, "mla.kv_lora_rank", s.mla.kv_lora_rank);
    positive(where, "mla.qk_nope_head_dim", s.mla.qk_nope_head_dim);
    positive(where, "mla.v_head_dim", s.mla.v_head_dim);
    if (s.mla.q_lora_rank < 0) positive(where, "mla.q_lora_rank", s.mla.q_lora_rank);
    if (s.mla.qk_rope_head_dim < 0) positive(where, "mla.qk_rope_head_dim", s.mla.qk_rope_head_dim);
  }
  if (s.count_layers(AttentionKind::KDA) > 0) {
    positive(where, "kda.heads", s.kda.heads);
    positive(where, "kda.head_dim", s.kda.head_dim);
    positive(where, "kda.short_conv_kernel", s.kda.short_conv_kernel);
    positive(where, "kda.chunk", s.kda.chunk);
    if (s.kda.key_heads < 0 || (s.kda.key_heads > 0 && s.kda.heads % s.kda.key_heads != 0)) {
      throw core::InputError(where("kda.key_heads"),
                             fmt::format("{} key heads do not divide {} value heads", s.kda.key_heads, s.kda.heads),
                             fmt::format("a key head count that divides {}", s.kda.heads));
    }
  }
  if (any_gqa) {
    positive(where, "gqa.heads", s.gqa.heads);
    positive(where, "gqa.kv_heads", s.gqa.kv_heads);
    positive(where, "gqa.head_dim", s.gqa.head_dim);
    if (s.gqa.heads % s.gqa.kv_heads != 0) {
      throw core::InputError(where("gqa.kv_heads"),
                             fmt::format("{} kv heads do not divide {} query heads", s.gqa.kv_heads, s.gqa.heads),
                             fmt::format("a kv head count that divides {}", s.gqa.heads));
    }
    // A model without explicit head_dim derives it as hidden / heads; a given one need not divide.
    if (!(s.gqa.rope_fraction > 0 && s.gqa.rope_fraction <= 1)) {
      throw core::InputError(where("gqa.rope_fraction"), fmt::format("must be in (0, 1], got {}", s.gqa.rope_fraction),
                             "a fraction of the head dims, 0 < f <= 1");
    }
  }
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    if (s.layers[i].window < 0) positive(where, "sliding_window.size", s.layers[i].window);
    if (s.layers[i].attention_chunk < 0) positive(where, "attention_chunk.size", s.layers[i].attention_chunk);
  }
  if (s.count_layers(FfnKind::Dense) > 0) positive(where, "dense_ffn.intermediate", s.dense_ffn.intermediate);
  if (s.has_moe()) {
    const auto& m = s.moe;
    positive(where, "moe.routed_experts", m.routed_experts);
    positive(where, "moe.experts_per_token", m.experts_per_token);
    positive(where, "moe.expert_ffn", m.expert_ffn);
    if (m.shared_experts < 0) positive(where, "moe.shared_experts", m.shared_experts);
    if (m.shared_experts > 0) positive(where, "moe.shared_expert_ffn", m.shared_expert_ffn);
    if (m.latent_dim < 0) positive(where, "moe.latent_dim", m.latent_dim);
    if (m.experts_per_token > m.routed_experts) {
      throw core::InputError(where("moe.experts_per_token"),
                             fmt::format("top-{} is more than the {} routed experts", m.experts_per_token,
                                         m.routed_experts),
                             fmt::format("1 to {}", m.routed_experts));
    }
  }
  if (s.mtp_layers < 0) positive(where, "mtp_layers", s.mtp_layers);
  if (s.attn_res_block_size < 0) positive(where, "attn_res_block_size", s.attn_res_block_size);
}

}  // namespace k3::model
