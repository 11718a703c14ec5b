// Router hot path: sigmoid scoring (one GEMM) plus biased top-k selection, in tokens per second per core
// (goal >= 500K tokens/s for top-16-of-896), and the per-step cost of the QB quantile methods.
#include <benchmark/benchmark.h>

#include "model/balancing/quantile.hpp"
#include "model/routing/synthetic_router.hpp"
#include "model/routing/topk_selection.hpp"

namespace {

using namespace k3::routing;

constexpr int kTokens = 4096;

void BM_ScoreAndSelect(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1));
  Eigen::setNbThreads(1);
  SyntheticRouter router(n, RouterConfig{});
  FeatureMatrix features;
  router.draw_features(0, 0, kTokens, features);
  std::vector<float> bias(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) bias[static_cast<std::size_t>(j)] = 0.01f * static_cast<float>(j % 7 - 3);
  ScoreMatrix scores;
  RoutedBatch routed;
  for (auto _ : state) {
    router.score(features, scores);
    route_topk(scores, bias, k, routed);
    benchmark::DoNotOptimize(routed.experts.data());
  }
  state.counters["tokens_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()) * kTokens,
                                                      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ScoreAndSelect)->Args({896, 16})->Args({448, 8})->Unit(benchmark::kMicrosecond);

void BM_SelectOnly(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1));
  SyntheticRouter router(n, RouterConfig{});
  ScoreMatrix scores;
  router.score_batch(0, 0, kTokens, scores);
  std::vector<float> bias(static_cast<std::size_t>(n), 0.0f);
  RoutedBatch routed;
  for (auto _ : state) {
    route_topk(scores, bias, k, routed);
    benchmark::DoNotOptimize(routed.experts.data());
  }
  state.counters["tokens_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()) * kTokens,
                                                      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SelectOnly)->Args({896, 16})->Args({448, 8})->Unit(benchmark::kMicrosecond);

void BM_DrawFeatures(benchmark::State& state) {
  SyntheticRouter router(896, RouterConfig{});
  FeatureMatrix features;
  int step = 0;
  for (auto _ : state) {
    router.draw_features(step++, 0, kTokens, features);
    benchmark::DoNotOptimize(features.data());
  }
  state.counters["tokens_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()) * kTokens,
                                                      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DrawFeatures)->Unit(benchmark::kMicrosecond);

// QB thresholds for one step of 4 ranks x 4096 tokens, top-16-of-896: exact, 1000-bin histogram, local mean.
void BM_QbThresholds(benchmark::State& state) {
  const int method = static_cast<int>(state.range(0));
  constexpr int kRanks = 4, n = 896, k = 16;
  SyntheticRouter router(n, RouterConfig{});
  std::vector<ScoreMatrix> scores(kRanks);
  std::vector<RoutedBatch> routed(kRanks);
  std::vector<k3::balancing::RankRouting> ranks(kRanks);
  std::vector<float> bias(n, 0.0f);
  for (int r = 0; r < kRanks; ++r) {
    router.score_batch(0, r, kTokens, scores[static_cast<std::size_t>(r)]);
    route_topk(scores[static_cast<std::size_t>(r)], bias, k, routed[static_cast<std::size_t>(r)]);
    ranks[static_cast<std::size_t>(r)] = {&scores[static_cast<std::size_t>(r)], &routed[static_cast<std::size_t>(r)]};
  }
  for (auto _ : state) {
    std::vector<double> t = method == 0   ? k3::balancing::thresholds_exact(ranks, k)
                            : method == 1 ? k3::balancing::thresholds_histogram(ranks, k, 1000, bias)
                                          : k3::balancing::thresholds_local_mean(ranks, k);
    benchmark::DoNotOptimize(t.data());
  }
  state.SetLabel(method == 0 ? "exact" : method == 1 ? "hist-1000" : "local-mean");
}
BENCHMARK(BM_QbThresholds)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
