#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "model/balancing/quantile.hpp"

using namespace k3::routing;

namespace {

// A global batch of `ranks` ranks routed with a non-trivial bias, kept alive for the RankRouting views.
struct Batch {
  std::vector<ScoreMatrix> scores;
  std::vector<RoutedBatch> routed;
  std::vector<k3::balancing::RankRouting> ranks;
  std::vector<float> bias;
  Batch(int n, int k, int ranks_count, int tokens, double skew) {
    RouterConfig cfg;
    cfg.rank_topic_skew = skew;
    SyntheticRouter router(n, cfg);
    bias.resize(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) bias[static_cast<std::size_t>(j)] = 0.03f * static_cast<float>(j % 5 - 2);
    scores.resize(static_cast<std::size_t>(ranks_count));
    routed.resize(scores.size());
    for (int r = 0; r < ranks_count; ++r) {
      router.score_batch(0, r, tokens, scores[static_cast<std::size_t>(r)]);
      route_topk(scores[static_cast<std::size_t>(r)], bias, k, routed[static_cast<std::size_t>(r)]);
      ranks.push_back({&scores[static_cast<std::size_t>(r)], &routed[static_cast<std::size_t>(r)]});
    }
  }
};

// Reference: sort every column of r_ij = alpha_i - s_ij and take the ceil(q)-th smallest.
std::vector<double> reference_thresholds(const Batch& b, int k) {
  const auto n = b.scores.front().cols();
  double m = 0;
  for (const auto& s : b.scores) m += static_cast<double>(s.rows());
  const auto rank = static_cast<std::size_t>(std::ceil(m * k / static_cast<double>(n) - 1e-9));
  std::vector<double> t;
  for (Eigen::Index j = 0; j < n; ++j) {
    std::vector<double> col;
    for (std::size_t r = 0; r < b.scores.size(); ++r)
      for (Eigen::Index i = 0; i < b.scores[r].rows(); ++i)
        col.push_back(static_cast<double>(b.routed[r].cutoff[static_cast<std::size_t>(i)]) -
                      static_cast<double>(b.scores[r](i, j)));
    std::sort(col.begin(), col.end());
    t.push_back(col[rank - 1]);
  }
  return t;
}

}  // namespace

TEST(Quantile, ExactQuantileByRank) {
  // 5 values; q = 2.2 -> rank ceil(2.2) = 3 -> third smallest of {1, 2, 3, 4, 5} = 3; q = 2 -> 2.
  std::vector<float> v{5, 1, 4, 2, 3};
  EXPECT_EQ(k3::balancing::exact_quantile(v, 2.2), 3.0f);
  EXPECT_EQ(k3::balancing::exact_quantile(v, 2.0), 2.0f);
  EXPECT_EQ(k3::balancing::exact_quantile(v, 99), 5.0f);  // clamped to the largest
}

TEST(Quantile, TwoPassExactEqualsSortReference) {
  Batch b(448, 8, 3, 700, 0.5);
  const auto fast = k3::balancing::thresholds_exact(b.ranks, 8);
  const auto ref = reference_thresholds(b, 8);
  ASSERT_EQ(fast.size(), ref.size());
  for (std::size_t j = 0; j < ref.size(); ++j) EXPECT_NEAR(fast[j], ref[j], 1e-6) << "expert " << j;
}

TEST(Quantile, ThousandBinHistogramWithinOneBinWidthOfExact) {
  // Acceptance: QB from 1,000-bin histograms summed over ranks gives each expert's threshold within one bin
  // width (b_max - b_min + 2) / 1000 of the exact global quantile on the same tokens.
  for (const auto& [n, k] : std::vector<std::pair<int, int>>{{896, 16}, {448, 8}}) {
    Batch b(n, k, 4, 600, 0.5);
    double width = 0;
    const auto hist = k3::balancing::thresholds_histogram(b.ranks, k, 1000, b.bias, &width);
    const auto exact = k3::balancing::thresholds_exact(b.ranks, k);
    // bias spans [-0.06, 0.06] -> range 2.12 over 1000 bins
    EXPECT_NEAR(width, 2.12 / 1000, 1e-6);
    double worst = 0;
    for (std::size_t j = 0; j < exact.size(); ++j) worst = std::max(worst, std::abs(hist[j] - exact[j]));
    EXPECT_LE(worst, width) << "n=" << n;
    EXPECT_GT(worst, 0.0);  // it is an approximation, not the exact value by accident
  }
}

TEST(Quantile, PerRankHistogramsSumToTheGlobalOne) {
  Batch b(64, 4, 3, 200, 1.0);
  k3::balancing::QuantileHistogram global(64, 50, -1.5, 1.5);
  for (const auto& r : b.ranks) global.add_rank(r);
  k3::balancing::QuantileHistogram merged(64, 50, -1.5, 1.5);
  for (const auto& r : b.ranks) {
    k3::balancing::QuantileHistogram local(64, 50, -1.5, 1.5);
    local.add_rank(r);
    merged.merge(local);
  }
  for (int j = 0; j < 64; ++j) {
    EXPECT_EQ(merged.total(j), 600);  // 3 ranks x 200 tokens, every token counted once per expert
    EXPECT_EQ(merged.quantile(j, 600.0 * 4 / 64), global.quantile(j, 600.0 * 4 / 64));
  }
}

TEST(Quantile, HistogramInterpolatesInsideTheBin) {
  // One expert, 4 bins over [0, 4); values 0.5, 1.5, 1.6, 3.5: counts 1, 2, 0, 1. q = 2 lands in bin 1
  // (cumulative 1 before, 2 inside): 1 + (2 - 1) / 2 = 1.5.
  ScoreMatrix s(4, 1);
  s << -0.5f, -1.5f, -1.6f, -3.5f;  // r = alpha - s with alpha = 0
  RoutedBatch rb;
  rb.tokens = 4;
  rb.top_k = 1;
  rb.cutoff = {0, 0, 0, 0};
  k3::balancing::QuantileHistogram h(1, 4, 0.0, 4.0);
  h.add_rank({&s, &rb});
  EXPECT_DOUBLE_EQ(h.quantile(0, 2.0), 1.5);
  EXPECT_DOUBLE_EQ(h.quantile(0, 1.0), 1.0);  // first bin full after its one value: 0 + 1 * 1 / 1
}

TEST(Quantile, LocalMeanDiffersFromGlobalWhenRanksSeeDifferentTopics) {
  // With each rank on its own topic the per-rank quantiles are of different distributions; their mean is not
  // the quantile of the mixture. With identical mixtures they agree closely.
  Batch skewed(448, 8, 4, 800, 1.0), alike(448, 8, 4, 800, 0.0);
  auto rms_gap = [](const Batch& b) {
    const auto g = k3::balancing::centred_bias(k3::balancing::thresholds_exact(b.ranks, 8));
    const auto l = k3::balancing::centred_bias(k3::balancing::thresholds_local_mean(b.ranks, 8));
    double sq = 0;
    for (std::size_t j = 0; j < g.size(); ++j) sq += std::pow(static_cast<double>(g[j] - l[j]), 2);
    return std::sqrt(sq / static_cast<double>(g.size()));
  };
  EXPECT_GT(rms_gap(skewed), 2.0 * rms_gap(alike));
}

TEST(Quantile, CentredBiasHasZeroMean) {
  const auto b = k3::balancing::centred_bias({1.0, 2.0, 6.0});  // mean 3 -> {-2, -1, 3}
  EXPECT_FLOAT_EQ(b[0], -2.0f);
  EXPECT_FLOAT_EQ(b[1], -1.0f);
  EXPECT_FLOAT_EQ(b[2], 3.0f);
}
