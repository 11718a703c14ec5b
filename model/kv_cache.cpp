#include "model/kv_cache.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/error.hpp"
#include "core/yaml_input.hpp"

namespace k3::model {

core::Bytes KvCache::bytes_per_sequence(double context) const {
  core::Bytes b = context * bytes_per_token + recurrent_state_bytes_per_sequence + conv_state_bytes_per_sequence;
  for (const auto& l : bounded) b += std::min(context, l.max_tokens) * l.bytes_per_token;
  return b;
}

KvCache kv_cache(const ModelSpec& spec, double cache_bytes_per_element) {
  // The short-conv state holds the layer's last inputs in the activation dtype (BF16), whatever the cache's.
  constexpr double kConvStateBytesPerElement = 2;
  KvCache kv;
  auto add = [&](const LayerSpec& l, double per) {
    if (!l.bounded()) {
      kv.bytes_per_token += per;
      kv.bytes_per_token_per_attention_layer = per;
      ++kv.cache_layers;
      return;
    }
    // A window keeps the last W keys; a chunk keeps the keys since the chunk began (at most C).
    const double cap = l.window > 0 && l.attention_chunk > 0 ? std::min(l.window, l.attention_chunk)
                                                              : std::max(l.window, l.attention_chunk);
    kv.bounded.push_back({per, cap});
    kv.bounded_bytes_per_sequence += per * cap;
    ++kv.bounded_layers;
  };
  for (const auto& l : spec.layers) {
    switch (l.attention) {
      case AttentionKind::MLA:
        add(l, (spec.mla.kv_lora_rank + spec.mla.qk_rope_head_dim) * cache_bytes_per_element);
        break;
      case AttentionKind::GQA:
        add(l, 2.0 * spec.gqa.kv_heads * spec.gqa.head_dim * cache_bytes_per_element);
        break;
      case AttentionKind::KDA: {
        const double p = static_cast<double>(spec.kda.heads) * spec.kda.head_dim;
        kv.recurrent_state_bytes_per_sequence += p * spec.kda.head_dim * 4;  // fp32 d_k x d_v per head
        const double conv_channels = 2.0 * spec.kda.qk_heads() * spec.kda.head_dim + p;  // q, k and v
        kv.conv_state_bytes_per_sequence += (spec.kda.short_conv_kernel - 1.0) * conv_channels * kConvStateBytesPerElement;
        ++kv.state_layers;
        break;
      }
    }
  }
  kv.state_bytes_per_sequence =
      kv.recurrent_state_bytes_per_sequence + kv.conv_state_bytes_per_sequence + kv.bounded_bytes_per_sequence;
  return kv;
}

KvCacheBudget kv_budget(const ModelSpec& spec, double total_params, double context, const GpuMemory& gpu, int gpus,
                        double weight_bytes_per_param, double reserve_fraction, double cache_bytes_per_element) {
  const auto kv = kv_cache(spec, cache_bytes_per_element);
  KvCacheBudget b;
  b.model = spec.name;
  b.context = context;
  b.bytes_per_sequence = kv.bytes_per_sequence(context);
  b.weight_bytes_per_gpu = total_params * weight_bytes_per_param / gpus;
  b.free_bytes_per_gpu = std::max(0.0, gpu.hbm_bytes * (1 - reserve_fraction) - b.weight_bytes_per_gpu);
  b.bytes_per_sequence_per_gpu = b.bytes_per_sequence / gpus;
  b.max_batch = std::floor(b.free_bytes_per_gpu / b.bytes_per_sequence_per_gpu);
  return b;
}

ModelSpec with_full_attention_as_gqa(const ModelSpec& spec, int kv_heads, int head_dim, const std::string& name) {
  ModelSpec out = spec;
  out.name = name;
  const int heads = spec.count_layers(AttentionKind::MLA) > 0 ? spec.mla.heads : spec.gqa.heads;
  out.gqa = GqaDims{heads, kv_heads, head_dim};
  for (auto& l : out.layers) {
    if (l.attention != AttentionKind::KDA) l.attention = AttentionKind::GQA;
  }
  out.mtp_attention = AttentionKind::GQA;
  return out;
}

}  // namespace k3::model
