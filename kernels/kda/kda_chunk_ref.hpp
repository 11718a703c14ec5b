#pragma once
// KDA's chunkwise forward (Kimi Linear, arXiv:2510.26692, section "Chunkwise parallelization of KDA": the
// WY representation and the UT transform), the algorithm the tensor-core kernel (kda_chunk.cu) runs.
// Same layouts and result as kda_recurrent_ref (kda_ref.hpp); the decode step stays the recurrence.
//
// Derivation, per head, for one chunk of L <= C tokens r = 1..L starting from state S_0 [dk, dv]:
//   gamma_r = a_1 * ... * a_r (per channel, relative to the chunk start, in (0, 1]); G_r = log gamma_r.
//   The delta rule writes u_i = b_i (v_i - S'_i^T k_i) with S'_i = Diag(a_i) S_{i-1}, so
//     S_r = Diag(gamma_r) S_0 + sum_{i<=r} Diag(gamma_r / gamma_i) k_i u_i^T.                       (WY form)
//   Putting S'_i into u_i: u_i + b_i sum_{j<i} (k_i^T Diag(gamma_i / gamma_j) k_j) u_j
//                              = b_i v_i - b_i S_0^T (gamma_i * k_i), i.e. (I + A) U = bV - b K~ S_0 with
//     A_ij = b_i sum_c k_ic k_jc exp(G_ic - G_jc) for j < i (strictly lower), K~ = gamma * K.
//   UT transform: T = (I + A)^-1 by forward substitution (unit lower triangular), then
//     W = T (b K~),  U~ = T (b V),  U = U~ - W S_0                                              (new values)
//     O = (gamma * Q) S_0 + Tril_incl(P) U,  P_rj = sum_c q_rc k_jc exp(G_rc - G_jc)            (output)
//     S_L = Diag(gamma_L) S_0 + (K * gamma_L / gamma)^T U                                        (state)
// Every decay factor above is exp of a non-positive number (G falls along the chunk), so it lies in
// (0, 1]; only the pairwise ratios gamma_i / gamma_j of A and P could be written as (K gamma)(K / gamma)^T,
// whose 1 / gamma can overflow for strong decays within 64 tokens. As in fla's chunk_kda, the pairs are
// split in sub-chunks of 16: within a sub-chunk pairwise exp(G_i - G_j); across sub-chunks both sides
// are scaled to the start of the later sub-chunk (exp(G_i - G_s) and exp(G_s - G_j), both <= 1), which
// is a product of two tensor-core operands in the kernel.
#include <cstddef>
#include <span>

#include "kernels/common/tolerance.hpp"

namespace k3::kernels {

inline constexpr std::size_t kKdaSubChunk = 16;  // the tensor-core tile edge

// q, k, a [T, H, dk]; v [T, H, dv]; beta [T, H]; state [H, dk, dv] updated in place; o [T, H, dv].
// a in (0, 1]; chunk a multiple of kKdaSubChunk (64 for K3, kKdaChunk).
void kda_chunk_ref(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                   std::span<const float> a, std::span<const float> beta, std::size_t tokens, std::size_t heads,
                   std::size_t dk, std::size_t dv, std::size_t chunk, std::span<float> state, std::span<float> o);

// Chunked reference against the recurrent one: both sum in double, the recurrent one rounds its state to
// FP32 every token (2^-24 relative each time, T of them) and the chunked one every chunk, so the two
// differ by about T * 2^-24 of the size of the state's terms: at the test lengths (<= 200 tokens)
// ~1e-5 relative. kKdaTolerance (kda_ref.hpp, 1e-4 abs + 1e-3 rel) covers that with margin.
//
// The tensor-core kernel against either reference: its per-chunk operands (W, gamma Q, K gamma_L / gamma,
// P, U) are rounded to BF16 (8 significant bits, 2^-9 relative each, so 2^-8 for a product) and summed in
// FP32; the carried FP32 state enters its products as a high and a low BF16 part (2^-17), so rounding does
// not compound through the state. Each chunk's error is then about 2^-8 of the size of its terms, and the
// state does not amplify earlier errors (each token multiplies it by Diag(a) (I - b k k^T), of norm <= 1
// when a <= 1 and b |k|^2 <= 2), though for channels with a near 1 the per-chunk errors add up: about
// sqrt(chunks) of them as a random walk, 4 at 1,000 tokens. With |q|, |k| <= 1 and values and state of
// order 1 (the tests' inputs) the terms are of order 1, hence 2^-6 relative plus 1e-2 absolute (for
// outputs near zero that are sums of terms of order 1). The kernel's device code under the CPU emulation
// (scripts/emulate-kernels.sh) stays within 0.25 of this bound at 7 to 200 tokens, and a 16x tighter
// bound fails: the rule is neither loose nor at the edge.
inline constexpr Tolerance kKdaChunkBf16Tolerance{1e-2, 0x1.0p-6};

}  // namespace k3::kernels
