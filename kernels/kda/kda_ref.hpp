#pragma once
// KDA (Kimi Delta Attention, arXiv:2510.26692) reference, recurrent form per head with FP32 state
// S [d_k, d_v]:  S_t = (I - b_t k_t k_t^T) Diag(a_t) S_{t-1} + b_t k_t v_t^T,   o_t = S_t^T q_t.
// The chunkwise kernel (chunk 64) must reproduce this recurrence; the decode step is one token of it.
#include <cstddef>
#include <span>

#include "kernels/common/tolerance.hpp"

namespace k3::kernels {

// q, k, a [T, H, dk]; v [T, H, dv]; beta [T, H]; state [H, dk, dv] updated in place; o [T, H, dv].
void kda_recurrent_ref(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                       std::span<const float> a, std::span<const float> beta, std::size_t tokens, std::size_t heads,
                       std::size_t dk, std::size_t dv, std::span<float> state, std::span<float> o);

// FP32 state, FP32 sums in another order over up to thousands of steps: relative to the size of the terms.
inline constexpr Tolerance kKdaTolerance{1e-4, 1e-3};

// Chunkwise FLOPs per head (DESIGN.md, paper eq. 13-14): 6 T d^2 + 3 T C d + T C^2.
inline double kda_chunk_flops(std::size_t tokens, std::size_t heads, std::size_t d, std::size_t chunk) {
  const double t = static_cast<double>(tokens), dd = static_cast<double>(d), c = static_cast<double>(chunk);
  return static_cast<double>(heads) * (6.0 * t * dd * dd + 3.0 * t * c * dd + t * c * c);
}
// Decode reads and writes the FP32 state: 8 d^2 bytes per head per token.
inline double kda_decode_bytes(std::size_t heads, std::size_t d) { return 8.0 * static_cast<double>(heads * d * d); }

}  // namespace k3::kernels
