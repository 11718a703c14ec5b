#include "model/routing/balance_experiment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <thread>

#include "model/routing/load_stats.hpp"
#include "model/routing/quantile.hpp"
#include "model/routing/topk_selection.hpp"
#include "sim/core/error.hpp"

namespace k3::routing {

void validate(const BalanceConfig& cfg) {
  validate(cfg.shape, cfg.shape.name.empty() ? "model" : cfg.shape.name);
  validate(cfg.router, "router");
  validate(cfg.placement, cfg.shape.experts, "--ep");
  auto positive = [](int v, const char* flag) {
    if (v < 1) throw core::InputError({flag, "", 0}, fmt::format("value {}", v), ">= 1");
  };
  positive(cfg.steps, "--steps");
  positive(cfg.ranks, "--ranks");
  positive(cfg.tokens_per_rank, "--tokens-per-rank");
  if (cfg.shape.top_k >= cfg.shape.experts && cfg.balancer.kind.starts_with("qb"))
    throw core::InputError({"--balancer", "", 0}, "Quantile Balancing needs k < n (the (k+1)-th score is the cutoff)",
                           "k < n");
  if (cfg.balancer.kind == "qb-hist" && cfg.balancer.bins < 2)
    throw core::InputError({"--bins", "", 0}, fmt::format("{} histogram bins", cfg.balancer.bins), ">= 2");
}

BalanceRun run_balance(const BalanceConfig& cfg) {
  validate(cfg);
  const int n = cfg.shape.experts, k = cfg.shape.top_k;
  SyntheticRouter router(n, cfg.router);
  auto balancer = make_balancer(cfg.balancer);
  const ExpertPlacement placement(n, cfg.placement);
  const double tokens = static_cast<double>(cfg.ranks) * cfg.tokens_per_rank;

  BalanceRun run;
  run.model = cfg.shape.name;
  run.balancer = balancer_label(cfg.balancer);
  run.bins = balancer->bins();
  run.tokens_per_step = tokens;
  run.noise_floor = maxvio_noise_floor(tokens, n, k);
  run.allreduce_bytes_per_layer = balancer->allreduce_bytes_per_layer(n, tokens);

  std::vector<float> bias(static_cast<std::size_t>(n), 0.0f);
  std::vector<ScoreMatrix> scores(static_cast<std::size_t>(cfg.ranks));
  std::vector<RoutedBatch> routed(static_cast<std::size_t>(cfg.ranks));
  std::vector<RankRouting> ranks(static_cast<std::size_t>(cfg.ranks));
  std::vector<double> load(static_cast<std::size_t>(n));
  for (int step = 0; step < cfg.steps; ++step) {
    std::fill(load.begin(), load.end(), 0.0);
    for (int r = 0; r < cfg.ranks; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      router.score_batch(step, r, cfg.tokens_per_rank, scores[ri]);
      route_topk(scores[ri], bias, k, routed[ri]);
      accumulate_expert_load(routed[ri], load);
      ranks[ri] = {&scores[ri], &routed[ri]};
    }
    BalanceStep rec;
    rec.step = step;
    rec.max_vio = max_vio(load);
    rec.gpu_max_over_mean = max_over_mean(placement.gpu_load(load));
    // The exact-quantile target is computed on the batch as routed with the old bias, like the update.
    std::vector<float> target;
    const bool exact_is_self = cfg.balancer.kind == "qb-exact";
    if (cfg.track_bias_error && !exact_is_self && k < n) target = centred_bias(thresholds_exact(ranks, k));
    balancer->update({ranks, load, k}, bias);
    if (!target.empty()) {
      double worst = 0, sq = 0;
      for (int j = 0; j < n; ++j) {
        const double e = std::abs(static_cast<double>(bias[static_cast<std::size_t>(j)]) - static_cast<double>(target[static_cast<std::size_t>(j)]));
        worst = std::max(worst, e);
        sq += e * e;
      }
      rec.bias_error_max = worst;
      rec.bias_error_rms = std::sqrt(sq / n);
    }
    run.curve.push_back(rec);
    router.drift(step, load);
  }
  run.final_bias = bias;
  run.last_expert_load = load;

  for (const auto& s : run.curve) {
    if (s.max_vio <= cfg.floor_factor * run.noise_floor) {
      run.steps_to_floor = s.step;
      break;
    }
  }
  std::vector<double> steady;
  for (std::size_t s = run.curve.size() / 2; s < run.curve.size(); ++s) steady.push_back(run.curve[s].max_vio);
  double sum = 0;
  for (double v : steady) sum += v;
  run.steady_maxvio_mean = sum / static_cast<double>(steady.size());
  std::sort(steady.begin(), steady.end());
  // Nearest-rank p99.
  const auto rank99 = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(steady.size())));
  run.steady_maxvio_p99 = steady[std::max<std::size_t>(rank99, 1) - 1];
  return run;
}

std::vector<BalanceRun> run_balance_all(const std::vector<BalanceConfig>& configs, int threads) {
  for (const auto& c : configs) validate(c);
  std::vector<BalanceRun> runs(configs.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(configs.size());
  auto worker = [&] {
    for (std::size_t i = next++; i < configs.size(); i = next++) {
      try {
        runs[i] = run_balance(configs[i]);
      } catch (...) {
        errors[i] = std::current_exception();  // rethrown on the calling thread, first in input order
      }
    }
  };
  const int workers = std::clamp(threads, 1, static_cast<int>(std::max<std::size_t>(configs.size(), 1)));
  std::vector<std::thread> pool;
  for (int t = 1; t < workers; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return runs;
}

}  // namespace k3::routing
