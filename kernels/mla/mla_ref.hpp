#pragma once
// MLA attention references (K3: 96 heads, NoPE).
// Prefill: causal softmax attention per head, q and k of 192 dims (128 nope + 64), v of 128 dims.
// Absorbed decode: every head's 576-dim query attends the shared latent cache [L, 576]; the values are
// the first 512 dims of each cache row (kv_lora), as in DeepSeek's weight-absorbed MLA decode.
#include <cstddef>
#include <span>

#include "kernels/common/tolerance.hpp"

namespace k3::kernels {

// q, k [T, H, dqk], v [T, H, dv] -> o [T, H, dv]; scale = 1 / sqrt(dqk).
void mla_prefill_ref(std::span<const float> q, std::span<const float> k, std::span<const float> v, std::size_t tokens,
                     std::size_t heads, std::size_t dqk, std::size_t dv, std::span<float> o);

// K3's output gate, o *= sigmoid(gate) elementwise ([T, H, dv]): the gated prefill is this after mla_prefill_ref.
void mla_output_gate_ref(std::span<const float> gate, std::span<float> o);

// q [H, dk], cache [L, dk] -> o [H, dv] using cache[:, 0:dv] as values.
void mla_decode_ref(std::span<const float> q, std::span<const float> cache, std::size_t heads, std::size_t cache_len,
                    std::size_t dk, std::size_t dv, float scale, std::span<float> o);

// The tolerances of the tiled references and of the kernels are in mla_tiled_ref.hpp.

inline double mla_prefill_flops(std::size_t tokens, std::size_t heads, std::size_t dqk, std::size_t dv) {
  const double pairs = static_cast<double>(tokens) * static_cast<double>(tokens + 1) / 2.0;
  return 2.0 * static_cast<double>(heads) * pairs * static_cast<double>(dqk + dv);
}
inline double mla_decode_bytes(std::size_t heads, std::size_t cache_len, std::size_t dk, std::size_t dv) {
  return 2.0 * static_cast<double>(cache_len * dk + heads * (dk + dv));
}

}  // namespace k3::kernels
