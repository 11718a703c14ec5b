// GEMM, MLA, KDA and collective-bandwidth references against hand-derived values.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/common/test_data.hpp"
#include "kernels/gemm/gemm_ref.hpp"
#include "kernels/kda/kda_ref.hpp"
#include "kernels/mla/mla_ref.hpp"
#include "kernels/nccl/bus_bandwidth.hpp"

using namespace k3::kernels;

TEST(GemmRef, MultipliesByTransposedWeights) {
  // a = [[1, 2], [3, 4]], b (weights, [n, k]) = [[1, 0], [1, 1], [0, 2]]
  // c = a b^T = [[1, 3, 4], [3, 7, 8]].
  const std::vector<float> a{1, 2, 3, 4}, b{1, 0, 1, 1, 0, 2};
  std::vector<float> c(6);
  gemm_ref(a, b, 2, 3, 2, c);
  EXPECT_EQ(c, (std::vector<float>{1, 3, 4, 3, 7, 8}));
  EXPECT_DOUBLE_EQ(gemm_flops(2, 3, 2), 24.0);
}

TEST(GemmRef, GroupedRunsEachExpertOnItsRows) {
  // Expert 0 (1 row): [1, 1] x [[2, 0]]^T = [2]; expert 1 (2 rows): [[1, 0], [0, 1]] x [[0, 3]]^T = [0, 3].
  const std::vector<float> a{1, 1, 1, 0, 0, 1}, b{2, 0, 0, 3};
  const std::vector<std::size_t> rows{1, 2};
  std::vector<float> c(3);
  grouped_gemm_ref(a, b, rows, 1, 2, c);
  EXPECT_EQ(c, (std::vector<float>{2, 0, 3}));
}

TEST(GemmRef, EighthsAreExactAtTheFullExpertWidth) {
  // Inputs in {-2, ..., 2} step 1/8 at k = 7168: a double-precision dot product gives the same value.
  const std::size_t k = 7168;
  const auto a = random_eighths(k, 1), b = random_eighths(k, 2);
  std::vector<float> c(1);
  gemm_ref(a, b, 1, 1, k, c);
  double exact = 0;
  for (std::size_t i = 0; i < k; ++i) exact += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  EXPECT_EQ(static_cast<double>(c[0]), exact);
  EXPECT_EQ(round_bf16(a[5]), a[5]);
}

TEST(MlaRef, CausalPrefillFirstTokenSeesOnlyItself) {
  // Token 0 attends only key 0, so o_0 = v_0 exactly; with identical keys token 1 averages v_0 and v_1.
  const std::size_t t = 2, h = 1, dqk = 2, dv = 1;
  const std::vector<float> q{1, 0, 1, 0}, k{0.5f, 0.5f, 0.5f, 0.5f}, v{2.0f, 4.0f};
  std::vector<float> o(2);
  mla_prefill_ref(q, k, v, t, h, dqk, dv, o);
  EXPECT_FLOAT_EQ(o[0], 2.0f);
  EXPECT_FLOAT_EQ(o[1], 3.0f);
}

TEST(MlaRef, AbsorbedDecodeWeightsLatentValues) {
  // One head, dk 2, dv 1, two cache rows [1, 0] and [0, 0]; q = [ln 3, 0], scale 1:
  // scores [ln 3, 0] -> softmax [3/4, 1/4]; values (first dim) [1, 0] -> o = 0.75.
  const std::vector<float> q{std::log(3.0f), 0}, cache{1, 0, 0, 0};
  std::vector<float> o(1);
  mla_decode_ref(q, cache, 1, 2, 2, 1, 1.0f, o);
  EXPECT_NEAR(o[0], 0.75f, 1e-6);
  // K3 prefill FLOPs: 96 heads, 1 token, (192 + 128) dims, 1 pair: 2 * 96 * 320 = 61440.
  EXPECT_DOUBLE_EQ(mla_prefill_flops(1, 96, 192, 128), 61440.0);
}

TEST(KdaRef, DeltaRuleOverwritesWithUnitKeyAndBeta) {
  // d = 1, a = 1, b = 1, k = 1: S_t = (1 - 1) S + v_t = v_t, and o_t = S_t q_t.
  const std::vector<float> q{2, 3}, k{1, 1}, v{5, 7}, a{1, 1}, beta{1, 1};
  std::vector<float> state{100.0f}, o(2);
  kda_recurrent_ref(q, k, v, a, beta, 2, 1, 1, 1, state, o);
  EXPECT_FLOAT_EQ(o[0], 10.0f);  // 5 * 2
  EXPECT_FLOAT_EQ(o[1], 21.0f);  // 7 * 3
  EXPECT_FLOAT_EQ(state[0], 7.0f);
}

TEST(KdaRef, DecayWithoutWriteShrinksTheState) {
  // b = 0: S_t = a S_{t-1}. Two steps with a = 0.5 from S = 8 leave 2; o = S q with q = 1.
  const std::vector<float> q{1, 1}, k{1, 1}, v{0, 0}, a{0.5f, 0.5f}, beta{0, 0};
  std::vector<float> state{8.0f}, o(2);
  kda_recurrent_ref(q, k, v, a, beta, 2, 1, 1, 1, state, o);
  EXPECT_FLOAT_EQ(o[0], 4.0f);
  EXPECT_FLOAT_EQ(o[1], 2.0f);
  // K3 decode state traffic: 96 heads * 8 * 128^2 B = 12,582,912 B (read + write 6 MiB).
  EXPECT_DOUBLE_EQ(kda_decode_bytes(96, 128), 12582912.0);
}

TEST(BusBandwidth, NcclTestsFactors) {
  // 8 ranks: all-reduce 2 * 7 / 8 = 1.75; the others 7 / 8 = 0.875; one rank moves nothing on the bus.
  EXPECT_DOUBLE_EQ(k3::net::busbw_factor(k3::net::CollectiveOp::allreduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(k3::net::busbw_factor(k3::net::CollectiveOp::allgather, 8), 0.875);
  EXPECT_DOUBLE_EQ(k3::net::busbw_factor(k3::net::CollectiveOp::alltoall, 8), 0.875);
  EXPECT_DOUBLE_EQ(k3::net::busbw_factor(k3::net::CollectiveOp::reducescatter, 1), 0.0);
}
