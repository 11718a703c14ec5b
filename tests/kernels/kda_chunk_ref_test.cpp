// KDA's chunkwise reference (WY / UT transform, kda_chunk_ref.hpp) against the recurrent one and by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/common/k3_shapes.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/kda/kda_chunk_ref.hpp"
#include "kernels/kda/kda_ref.hpp"

using namespace k3::kernels;

namespace {

struct KdaInputs {
  std::vector<float> q, k, v, a, beta, state;
};

// q, k of norm about 0.65 at dk 128 (uniform in +-0.1), values and initial state of order 1, write
// strengths in [0, 1], decays in [a_lo, 1].
KdaInputs random_inputs(std::size_t t, std::size_t h, std::size_t dk, std::size_t dv, double a_lo, std::uint64_t seed) {
  return {random_float(t * h * dk, seed, -0.1, 0.1), random_float(t * h * dk, seed + 1, -0.1, 0.1),
          random_float(t * h * dv, seed + 2, -1, 1),  random_float(t * h * dk, seed + 3, a_lo, 1.0),
          random_float(t * h, seed + 4, 0, 1),        random_float(h * dk * dv, seed + 5, -1, 1)};
}

void expect_chunked_equals_recurrent(const KdaInputs& in, std::size_t t, std::size_t h, std::size_t dk,
                                     std::size_t dv, std::size_t chunk) {
  std::vector<float> rec_state = in.state, chunk_state = in.state, want(t * h * dv), got(t * h * dv);
  kda_recurrent_ref(in.q, in.k, in.v, in.a, in.beta, t, h, dk, dv, rec_state, want);
  kda_chunk_ref(in.q, in.k, in.v, in.a, in.beta, t, h, dk, dv, chunk, chunk_state, got);
  const auto out = compare(got, want, kKdaTolerance), state = compare(chunk_state, rec_state, kKdaTolerance);
  EXPECT_TRUE(out.ok()) << "tokens " << t << " chunk " << chunk << " outputs: " << out.summary();
  EXPECT_TRUE(state.ok()) << "tokens " << t << " chunk " << chunk << " state: " << state.summary();
}

}  // namespace

TEST(KdaChunkRef, DeltaRuleOverwritesWithUnitKeyAndBeta) {
  // As KdaRef's hand case, in one chunk: d = 1, a = b = k = 1: S_1 = v_1 = 5, o_1 = 5 * 2 = 10;
  // S_2 = v_2 = 7, o_2 = 7 * 3 = 21. Chunk form: A_21 = b k_2 k_1 = 1, T = [[1, 0], [-1, 1]],
  // U~ = T v = [5, 2], W = T k = [1, 0], U = U~ - W * 100 = [-95, 2]; O = q S_0 + Tril(P) U with
  // P = [[2, .], [3, 3]]: o_1 = 200 - 190 = 10, o_2 = 300 + 3 * (-95 + 2) = 21; S = 100 + (-95 + 2) = 7.
  const std::vector<float> q{2, 3}, k{1, 1}, v{5, 7}, a{1, 1}, beta{1, 1};
  std::vector<float> state{100.0f}, o(2);
  kda_chunk_ref(q, k, v, a, beta, 2, 1, 1, 1, kKdaChunk, state, o);
  EXPECT_NEAR(o[0], 10.0f, 1e-5);
  EXPECT_NEAR(o[1], 21.0f, 1e-5);
  EXPECT_NEAR(state[0], 7.0f, 1e-5);
}

TEST(KdaChunkRef, DecayWithoutWriteShrinksTheState) {
  // b = 0: U = 0 and O = (gamma q) S_0: gamma = 0.5, 0.25 from S = 8 gives 4, 2; S_L = 0.25 * 8 = 2.
  const std::vector<float> q{1, 1}, k{1, 1}, v{0, 0}, a{0.5f, 0.5f}, beta{0, 0};
  std::vector<float> state{8.0f}, o(2);
  kda_chunk_ref(q, k, v, a, beta, 2, 1, 1, 1, kKdaChunk, state, o);
  EXPECT_NEAR(o[0], 4.0f, 1e-6);
  EXPECT_NEAR(o[1], 2.0f, 1e-6);
  EXPECT_NEAR(state[0], 2.0f, 1e-6);
}

TEST(KdaChunkRef, EqualsRecurrentAcrossLengthsAndChunkBoundaries) {
  // K3's head dim, 3 heads, a nonzero initial state; lengths below, at and across chunk boundaries
  // (1, 15 | 16, 17 | 63, 64, 65 | 130 = two chunks and a tail of 2), chunks of 64 and of 16.
  const std::size_t h = 3, d = kKdaHeadDim;
  for (std::size_t t : {1, 15, 17, 63, 64, 65, 130}) {
    const auto in = random_inputs(t, h, d, d, 0.9, t);
    expect_chunked_equals_recurrent(in, t, h, d, d, kKdaChunk);
    if (t == 65 || t == 17) expect_chunked_equals_recurrent(in, t, h, d, d, kKdaSubChunk);
  }
}

TEST(KdaChunkRef, EqualsRecurrentWithUnequalKeyAndValueDims) {
  // dk 48, dv 24 (layouts indexed by the right dim), 2 heads, 100 tokens.
  const auto in = random_inputs(100, 2, 48, 24, 0.8, 77);
  expect_chunked_equals_recurrent(in, 100, 2, 48, 24, kKdaChunk);
}

TEST(KdaChunkRef, StrongDecaysStayFiniteAndExact) {
  // Decays in [0.01, 0.05]: over a chunk gamma falls to ~1e-100, so K / gamma would be ~1e100, beyond
  // FP32 (and 1e-100 * 1e100 products lose everything): the sub-chunk split keeps each factor <= 1.
  // Across 16 tokens the pairwise ratio is at least 0.01^15: the state forgets, the outputs are the
  // last few tokens' values; both forms must agree.
  const std::size_t t = 100, h = 2, d = 32;
  KdaInputs in = random_inputs(t, h, d, d, 0.9, 5);
  in.a = random_float(t * h * d, 6, 0.01, 0.05);
  expect_chunked_equals_recurrent(in, t, h, d, d, kKdaChunk);
}
