// Speed of the CPU references (what the cpu calibration backend times) and of the profile lookup the cost
// model calls once per op.
#include <benchmark/benchmark.h>

#include <cmath>

#include "kernels/common/k3_shapes.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/permute/permute_ref.hpp"
#include "kernels/qb_histogram/qb_ref.hpp"
#include "kernels/router/router_ref.hpp"
#include "kernels/situ_glu/situ_glu_ref.hpp"
#include "sim/cost/calibration_profile.hpp"

using namespace k3::kernels;

static void BM_SituGluRef(benchmark::State& state) {
  const auto t = static_cast<std::size_t>(state.range(0));
  const auto x = random_bf16(t * 2 * kExpertFfn, 1, -8, 8);
  std::vector<float> out(t * kExpertFfn);
  for (auto _ : state) {
    situ_glu_ref(x, t, kExpertFfn, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(situ_glu_bytes(t, kExpertFfn)));
}
BENCHMARK(BM_SituGluRef)->Arg(64)->Arg(256);

static void BM_RouterRef(benchmark::State& state) {
  const auto t = static_cast<std::size_t>(state.range(0));
  const RouterShape s{kRoutedExperts, kTopK, 1, 0};
  const auto logits = random_float(t * s.experts, 2, -4, 4), bias = random_float(s.experts, 3, -0.05, 0.05);
  for (auto _ : state) benchmark::DoNotOptimize(route_ref(logits, bias, t, s));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * t));
}
BENCHMARK(BM_RouterRef)->Arg(64);

static void BM_QbHistogramRef(benchmark::State& state) {
  const auto t = static_cast<std::size_t>(state.range(0));
  const QbHistogramShape s{};
  const auto scores = random_float(t * s.experts, 4, 0, 1), cutoff = random_float(t, 5, 0.5, 1);
  for (auto _ : state) benchmark::DoNotOptimize(qb_histogram_ref(scores, cutoff, t, s));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * t * s.experts));
}
BENCHMARK(BM_QbHistogramRef)->Arg(256);

static void BM_PermuteRef(benchmark::State& state) {
  const auto t = static_cast<std::size_t>(state.range(0));
  const auto x = random_bf16(t * kLatent, 6, -1, 1);
  const auto layout = dispatch_layout_ref(random_routing(t, kTopK, kRoutedExperts, 7), t, kTopK, kRoutedExperts);
  std::vector<Bf16> out(t * kTopK * kLatent);
  for (auto _ : state) {
    permute_ref(x, layout, kTopK, kLatent, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(permute_bytes(t, kTopK, kLatent)));
}
BENCHMARK(BM_PermuteRef)->Arg(64);

static void BM_ProfileEfficiencyLookup(benchmark::State& state) {
  k3::cost::CalibrationProfile p;
  p.set_hbm_bytes_per_s(4e12);
  p.set_gemm_flops_per_s("bf16", 8e14);
  k3::cost::EfficiencyCurve c{k3::cost::WorkUnit::kFlops, "gemm_bf16", {}};
  for (int i = 0; i < 16; ++i) c.points.push_back({std::pow(10.0, 6 + 0.5 * i), 0.05 + 0.05 * i});
  p.set_curve("gemm_bf16", c);
  double work = 1e6;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.efficiency("gemm_bf16", work));
    work = work > 1e13 ? 1e6 : work * 1.37;
  }
}
BENCHMARK(BM_ProfileEfficiencyLookup);

BENCHMARK_MAIN();
