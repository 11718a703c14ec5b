#include <gtest/gtest.h>

#include <cmath>

#include "model/balancing/load_stats.hpp"
#include "core/rng.hpp"

using namespace k3::balancing;

TEST(LoadStats, MaxVioAndMaxOverMeanByHand) {
  // loads 1, 2, 3, 6: mean 3, MaxVio = (6 - 3) / 3 = 1, max/mean = 2
  const std::vector<double> load{1, 2, 3, 6};
  EXPECT_DOUBLE_EQ(k3::balancing::max_vio(load), 1.0);
  EXPECT_DOUBLE_EQ(k3::balancing::max_over_mean(load), 2.0);
  EXPECT_DOUBLE_EQ(k3::balancing::max_vio(std::vector<double>{4, 4, 4}), 0.0);
}

TEST(NoiseFloor, EveryExpertChosenHasNoNoise) { EXPECT_DOUBLE_EQ(k3::balancing::maxvio_noise_floor(1000, 8, 8), 0.0); }

TEST(NoiseFloor, TwoIndependentCoinsByHand) {
  // n = 2, k = 1, m = 1 under the independence model: two Bernoulli(1/2) loads, E[max] = 1 - 1/4 = 0.75,
  // mean 0.5 -> floor (0.75 - 0.5) / 0.5 = 0.5.
  EXPECT_NEAR(k3::balancing::maxvio_noise_floor(1, 2, 1), 0.5, 1e-12);
}

TEST(NoiseFloor, MatchesSimulationOfUniformKSubsets) {
  // Tokens each pick a uniform k-subset (equal expected loads); the mean MaxVio over 150 batches must match the
  // closed form within 3% (simulation error ~0.7%, independence approximation well below that at n >= 448).
  for (const auto& [n, k, m] : std::vector<std::tuple<int, int, int>>{{896, 16, 4096}, {448, 8, 4096}}) {
    k3::core::Rng rng(11);
    double sum = 0;
    constexpr int kBatches = 150;
    // Partial Fisher-Yates on a persistent permutation: any permutation is a valid start, so no reset needed.
    std::vector<int> pool(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) pool[static_cast<std::size_t>(j)] = j;
    for (int b = 0; b < kBatches; ++b) {
      std::vector<double> load(static_cast<std::size_t>(n), 0.0);
      for (int i = 0; i < m; ++i) {
        for (int q = 0; q < k; ++q) {
          const auto pick = static_cast<std::size_t>(q) + rng.below(static_cast<std::uint64_t>(n - q));
          std::swap(pool[static_cast<std::size_t>(q)], pool[pick]);
          load[static_cast<std::size_t>(pool[static_cast<std::size_t>(q)])] += 1;
        }
      }
      sum += k3::balancing::max_vio(load);
    }
    const double simulated = sum / kBatches;
    EXPECT_NEAR(k3::balancing::maxvio_noise_floor(m, n, k), simulated, 0.03 * simulated) << "n=" << n;
  }
}

TEST(NoiseFloor, ShrinksAsOneOverRootTokens) {
  // The floor is ~ c * sd / mean = c * sqrt((1 - p) / (m p)): 4x the tokens halves it (c drifts slightly).
  const double a = k3::balancing::maxvio_noise_floor(4096, 896, 16), b = k3::balancing::maxvio_noise_floor(16384, 896, 16);
  EXPECT_NEAR(a / b, 2.0, 0.1);
}
