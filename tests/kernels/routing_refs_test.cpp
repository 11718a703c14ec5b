// Router, QB histogram and dispatch-layout references against hand-derived values.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <numeric>
#include <vector>

#include "kernels/common/test_data.hpp"
#include "kernels/permute/permute_ref.hpp"
#include "kernels/qb_histogram/qb_ref.hpp"
#include "kernels/router/router_ref.hpp"

using namespace k3::kernels;

TEST(RouterRef, TopKOnBiasedScoresWithGatesFromUnbiasedScores) {
  // 4 experts, top 2, logits 0 for all: scores all sigmoid(0) = 0.5. Bias [0, 0.3, -0.1, 0.2]:
  // biased [0.5, 0.8, 0.4, 0.7] -> chosen experts 1 then 3; gates 0.5 / (0.5 + 0.5) = 0.5 each (bias excluded);
  // cutoff = the third biased score = 0.5 (expert 0).
  const std::vector<float> logits(4, 0.0f), bias{0.0f, 0.3f, -0.1f, 0.2f};
  const auto r = route_ref(logits, bias, 1, RouterShape{4, 2, 1, 0});
  EXPECT_EQ(r.expert, (std::vector<std::int32_t>{1, 3}));
  EXPECT_FLOAT_EQ(r.gate[0], 0.5f);
  EXPECT_FLOAT_EQ(r.gate[1], 0.5f);
  EXPECT_FLOAT_EQ(r.cutoff[0], 0.5f);
}

TEST(RouterRef, GatesRenormaliseOverChosenScores) {
  // logits [ln 3, 0, -ln 3]: scores [0.75, 0.5, 0.25]; top 2 without bias -> experts 0, 1;
  // gates 0.75 / 1.25 = 0.6 and 0.5 / 1.25 = 0.4; cutoff 0.25.
  const std::vector<float> logits{std::log(3.0f), 0.0f, -std::log(3.0f)}, bias(3, 0.0f);
  const auto r = route_ref(logits, bias, 1, RouterShape{3, 2, 1, 0});
  EXPECT_EQ(r.expert, (std::vector<std::int32_t>{0, 1}));
  EXPECT_NEAR(r.gate[0], 0.6f, 1e-6);
  EXPECT_NEAR(r.gate[1], 0.4f, 1e-6);
  EXPECT_NEAR(r.cutoff[0], 0.25f, 1e-6);
}

TEST(RouterRef, NodeLimitKeepsTheBestNodes) {
  // 8 experts in 4 nodes of 2, top 2, at most 1 node. Bias-only scores (logits 0 -> 0.5 each):
  // biased [0.5+0.4, 0.5+0, | 0.5+0.3, 0.5+0.3 | 0.5, 0.5 | 0.5, 0.5]
  // node scores (sum of best two): [1.4, 1.6, 1.0, 1.0] -> node 1 is kept although expert 0 is the best
  // single expert, so the chosen experts are 2 and 3 and the cutoff is -inf (no third allowed expert).
  const std::vector<float> logits(8, 0.0f), bias{0.4f, 0.0f, 0.3f, 0.3f, 0.0f, 0.0f, 0.0f, 0.0f};
  const auto limited = route_ref(logits, bias, 1, RouterShape{8, 2, 4, 1});
  EXPECT_EQ(limited.expert, (std::vector<std::int32_t>{2, 3}));
  EXPECT_TRUE(std::isinf(limited.cutoff[0]));
  // Without the limit: experts 0 (0.9) then 2 (0.8; tie with 3 goes to the lower index).
  const auto free = route_ref(logits, bias, 1, RouterShape{8, 2, 4, 0});
  EXPECT_EQ(free.expert, (std::vector<std::int32_t>{0, 2}));
}

TEST(RouterRef, K3ShapeGatesSumToOne) {
  const std::size_t tokens = 7;
  const RouterShape s{896, 16, 1, 0};
  const auto logits = random_float(tokens * s.experts, 1, -4, 4);
  const auto bias = random_float(s.experts, 2, -0.1, 0.1);
  const auto r = route_ref(logits, bias, tokens, s);
  for (std::size_t t = 0; t < tokens; ++t) {
    float sum = 0;
    for (std::size_t j = 0; j < s.top_k; ++j) sum += r.gate[t * s.top_k + j];
    EXPECT_NEAR(sum, 1.0f, 1e-5);
  }
}

TEST(QbRef, HistogramBinsCutoffMinusScore) {
  // 2 tokens, 2 experts, 4 bins over [-1, 1): width 0.5, bins [-1,-0.5) [-0.5,0) [0,0.5) [0.5,1).
  // cutoff [0.5, 0.75]; scores [[0.25, 0.75], [1.0, 0.5]] -> r = [[0.25, -0.25], [-0.25, 0.25]].
  // expert 0: r 0.25 -> bin 2, -0.25 -> bin 1; expert 1: -0.25 -> bin 1, 0.25 -> bin 2.
  const QbHistogramShape s{2, 4, -1.0f, 1.0f};
  const std::vector<float> scores{0.25f, 0.75f, 1.0f, 0.5f}, cutoff{0.5f, 0.75f};
  const auto h = qb_histogram_ref(scores, cutoff, 2, s);
  EXPECT_EQ(h, (std::vector<std::uint32_t>{0, 1, 1, 0, 0, 1, 1, 0}));
  // Out-of-range values clamp into the end bins.
  EXPECT_EQ(qb_bin(-5.0f, s), 0u);
  EXPECT_EQ(qb_bin(5.0f, s), 3u);
}

TEST(QbRef, QuantileInterpolatesInsideTheBin) {
  // One expert, 4 bins over [0, 4) (width 1), counts [2, 4, 2, 0]. q = 4: bins before hold 2, so the value
  // lies in bin 1 at fraction (4 - 2) / 4 = 0.5 -> 1.5. q = 2 is reached exactly at the end of bin 0 -> 1.0.
  const QbHistogramShape s{1, 4, 0.0f, 4.0f};
  const std::vector<std::uint32_t> counts{2, 4, 2, 0};
  EXPECT_FLOAT_EQ(qb_quantile_ref(counts, s, 4.0)[0], 1.5f);
  EXPECT_FLOAT_EQ(qb_quantile_ref(counts, s, 2.0)[0], 1.0f);
  // Biases subtract the mean: [1, 3] -> [-1, 1].
  const std::vector<float> q{1.0f, 3.0f};
  EXPECT_EQ(qb_bias_from_quantiles(q), (std::vector<float>{-1.0f, 1.0f}));
}

TEST(QbRef, QuantileErrorIsAtMostOneBinWidth) {
  // Uniform r over tokens, 1000 bins over [-2, 2): the histogram quantile equals the exact order statistic
  // to within one bin width (0.004), the bound DESIGN.md states.
  const std::size_t tokens = 4096, experts = 3;
  const QbHistogramShape s{experts, 1000, -2.0f, 2.0f};
  const auto scores = random_float(tokens * experts, 3, 0, 1);
  const std::vector<float> cutoff(tokens, 0.5f);
  const auto h = qb_histogram_ref(scores, cutoff, tokens, s);
  const double q = 256.0;  // tokens * k / n with k / n = 1 / 16
  const auto est = qb_quantile_ref(h, s, q);
  for (std::size_t e = 0; e < experts; ++e) {
    std::vector<float> r(tokens);
    for (std::size_t t = 0; t < tokens; ++t) r[t] = cutoff[t] - scores[t * experts + e];
    std::sort(r.begin(), r.end());
    EXPECT_NEAR(est[e], r[255], 0.004);
  }
}

TEST(PermuteRef, StableLayoutByTokenThenSlot) {
  // 3 tokens, top 2, 3 experts. Choices: t0 -> [2, 0], t1 -> [0, 1], t2 -> [2, 0].
  // counts [3, 1, 2]; offsets [0, 3, 4]. Expert 0 receives copies in order (t0 s1), (t1 s0), (t2 s1) -> rows 0,1,2;
  // expert 1: (t1 s1) -> row 3; expert 2: (t0 s0), (t2 s0) -> rows 4, 5.
  const std::vector<std::int32_t> expert{2, 0, 0, 1, 2, 0};
  const auto l = dispatch_layout_ref(expert, 3, 2, 3);
  EXPECT_EQ(l.counts, (std::vector<std::int32_t>{3, 1, 2}));
  EXPECT_EQ(l.offsets, (std::vector<std::int32_t>{0, 3, 4}));
  EXPECT_EQ(l.position, (std::vector<std::int32_t>{4, 0, 1, 3, 5, 2}));
  EXPECT_EQ(l.source_token, (std::vector<std::int32_t>{0, 1, 2, 1, 0, 2}));
  // Width 1 rows x = [10, 20, 30]: permuted rows follow source_token.
  const std::vector<Bf16> x{to_bf16(10.0f), to_bf16(20.0f), to_bf16(30.0f)};
  std::vector<Bf16> out(6);
  permute_ref(x, l, 2, 1, out);
  EXPECT_EQ(to_float(out), (std::vector<float>{10, 20, 30, 20, 10, 30}));
  // Unpermute with gates 0.25 / 0.75 gives back 0.25 x + 0.75 x = x for each token.
  const std::vector<float> gate{0.25f, 0.75f, 0.25f, 0.75f, 0.25f, 0.75f};
  std::vector<float> back(3);
  unpermute_ref(out, l, gate, 3, 2, 1, back);
  EXPECT_EQ(back, (std::vector<float>{10, 20, 30}));
}
