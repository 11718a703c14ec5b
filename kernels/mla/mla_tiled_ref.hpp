#pragma once
// MLA attention in the tiled forms the CUDA kernels (mla_tiled.cu) run; the naive forms are mla_ref.hpp.
// Prefill: FlashAttention-2's algorithm (arXiv:2307.08691, Algorithm 1): per head, a tile of 64 queries
// walks the key tiles of 64 up to its causal diagonal, keeping per query the running max m, the running
// sum l and the unnormalised output; a new tile with max m' rescales both by exp(m - m'). Only the last
// tile is masked. The gate is K3's output gate: o = sigmoid(g) * attention (NoPE: no rotation of q, k).
// Decode (absorbed, over the compressed cache): flash-decoding (Dao et al. 2023): the cache is split into
// equal runs of keys; each run gives its normalised output o_s and log-sum-exp lse_s per head, and the
// combine weighs run s by exp(lse_s - max lse).
#include <cstddef>
#include <span>

#include "kernels/common/tolerance.hpp"

namespace k3::kernels {

inline constexpr std::size_t kMlaQueryTile = 64;  // FA2's B_r
inline constexpr std::size_t kMlaKeyTile = 64;    // FA2's B_c (and the decode kernel's key tile)
// Decode splits the cache into about this many runs (enough blocks to fill an H200's 132 SMs with 96 heads
// in groups of 16), each a whole number of key tiles.
inline constexpr std::size_t kMlaDecodeTargetSplits = 32;

// Keys per decode run for a cache of `cache_len` keys: ceil(L / 32) rounded up to a key tile, at least one.
std::size_t mla_decode_split_len(std::size_t cache_len);

// q, k [T, H, dqk], v and gate [T, H, dv] -> o [T, H, dv], causal, scale 1 / sqrt(dqk).
void mla_prefill_tiled_ref(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                           std::span<const float> gate, std::size_t tokens, std::size_t heads, std::size_t dqk,
                           std::size_t dv, std::span<float> o);

// q [H, dk], cache [L, dk] -> o [H, dv] (values = cache[:, 0:dv]), in runs of split_len keys then combined.
void mla_decode_split_ref(std::span<const float> q, std::span<const float> cache, std::size_t heads,
                          std::size_t cache_len, std::size_t dk, std::size_t dv, float scale, std::size_t split_len,
                          std::span<float> o);

// Tiled references against the naive ones: the same sums in FP32 (tiled) and double (naive) in another
// order and with the exp(m - m') rescaling, so they agree to a few FP32 roundings of the output's size
// (outputs are convex combinations of values of size <= 1, times a gate in (0, 1)): 1e-5 is ~100 ulps.
inline constexpr Tolerance kAttentionTiledRefTolerance{1e-5, 1e-5};
// The tensor-core kernels against the references: the inputs are BF16, the scores are summed in FP32,
// and P is rounded to BF16 before P V (2^-9 relative per weight, the sum l taken over the rounded
// weights so the output stays a convex combination): the error is about 2^-9 of the largest value, with
// |values| <= 1 in the tests. 2^-8 absolute plus 2^-7 relative leaves a factor of two and more (the
// kernels' device code under the CPU emulation, scripts/emulate-kernels.sh, stays within 0.3 of it).
inline constexpr Tolerance kAttentionBf16Tolerance{0x1.0p-8, 0x1.0p-7};

}  // namespace k3::kernels
