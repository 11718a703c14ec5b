#include "model/balancing/balance_experiment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/balancing/load_stats.hpp"
#include "model/balancing/quantile.hpp"
#include "model/routing/topk_selection.hpp"
#include "core/error.hpp"
#include "core/parallel_for.hpp"

namespace k3::balancing {

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

namespace {

// One balancer's run, advanced one step at a time on scores produced outside, so that runs that see the same
// tokens (same router, no load feedback) can share the scoring.
class BalanceRunner {
 public:
  explicit BalanceRunner(const BalanceConfig& cfg)
      : cfg_(cfg), balancer_(make_balancer(cfg.balancer)), placement_(cfg.shape.experts, cfg.placement),
        bias_(static_cast<std::size_t>(cfg.shape.experts), 0.0f), routed_(static_cast<std::size_t>(cfg.ranks)),
        ranks_(routed_.size()), load_(bias_.size()) {
    const double tokens = static_cast<double>(cfg.ranks) * cfg.tokens_per_rank;
    run_.model = cfg.shape.name;
    run_.balancer = balancer_label(cfg.balancer);
    run_.bins = balancer_->bins();
    run_.tokens_per_step = tokens;
    run_.noise_floor = maxvio_noise_floor(tokens, cfg.shape.experts, cfg.shape.top_k);
    run_.allreduce_bytes_per_layer = balancer_->allreduce_bytes_per_layer(cfg.shape.experts, tokens);
  }

  // Routes this step's batch with the current bias, records it, then updates the bias.
  void step(int step, const std::vector<routing::ScoreMatrix>& scores) {
    const int n = cfg_.shape.experts, k = cfg_.shape.top_k;
    std::fill(load_.begin(), load_.end(), 0.0);
    for (std::size_t r = 0; r < routed_.size(); ++r) {
      routing::route_topk(scores[r], bias_, k, routed_[r]);
      routing::accumulate_expert_load(routed_[r], load_);
      ranks_[r] = {&scores[r], &routed_[r]};
    }
    BalanceStep rec;
    rec.step = step;
    rec.max_vio = max_vio(load_);
    rec.gpu_max_over_mean = max_over_mean(placement_.gpu_load(load_));
    // The exact-quantile target is computed on the batch as routed with the old bias, like the update.
    std::vector<float> target;
    if (cfg_.track_bias_error && cfg_.balancer.kind != "qb-exact" && k < n) target = centred_bias(thresholds_exact(ranks_, k));
    balancer_->update({ranks_, load_, k}, bias_);
    if (!target.empty()) {
      double worst = 0, sq = 0;
      for (std::size_t j = 0; j < bias_.size(); ++j) {
        const double e = std::abs(static_cast<double>(bias_[j]) - static_cast<double>(target[j]));
        worst = std::max(worst, e);
        sq += e * e;
      }
      rec.bias_error_max = worst;
      rec.bias_error_rms = std::sqrt(sq / n);
    }
    run_.curve.push_back(rec);
  }

  const std::vector<double>& load() const { return load_; }

  BalanceRun finish() {
    run_.final_bias = bias_;
    run_.last_expert_load = load_;
    for (const auto& s : run_.curve) {
      if (s.max_vio <= cfg_.floor_factor * run_.noise_floor) {
        run_.steps_to_floor = s.step;
        break;
      }
    }
    std::vector<double> steady;
    for (std::size_t s = run_.curve.size() / 2; s < run_.curve.size(); ++s) steady.push_back(run_.curve[s].max_vio);
    double sum = 0;
    for (double v : steady) sum += v;
    run_.steady_maxvio_mean = sum / static_cast<double>(steady.size());
    std::sort(steady.begin(), steady.end());
    // Nearest-rank p99.
    const auto rank99 = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(steady.size())));
    run_.steady_maxvio_p99 = steady[std::max<std::size_t>(rank99, 1) - 1];
    return std::move(run_);
  }

 private:
  BalanceConfig cfg_;
  std::unique_ptr<Balancer> balancer_;
  routing::ExpertPlacement placement_;
  std::vector<float> bias_;
  std::vector<routing::RoutedBatch> routed_;
  std::vector<RankRouting> ranks_;
  std::vector<double> load_;
  BalanceRun run_;
};

// Runs configurations that share one token stream (same shape, router, batch, steps; no load feedback, which
// would make the router depend on the balancer) in lockstep: each step is scored once for all of them.
std::vector<BalanceRun> run_shared_stream(const std::vector<const BalanceConfig*>& group) {
  const BalanceConfig& first = *group.front();
  routing::SyntheticRouter router(first.shape.experts, first.router);
  std::vector<BalanceRunner> runners;
  runners.reserve(group.size());
  for (const auto* c : group) runners.emplace_back(*c);
  std::vector<routing::ScoreMatrix> scores(static_cast<std::size_t>(first.ranks));
  for (int step = 0; step < first.steps; ++step) {
    for (int r = 0; r < first.ranks; ++r) router.score_batch(step, r, first.tokens_per_rank, scores[static_cast<std::size_t>(r)]);
    for (auto& runner : runners) runner.step(step, scores);
    router.drift(step, {});  // the random walk only: feedback is excluded from shared streams
  }
  std::vector<BalanceRun> runs;
  for (auto& runner : runners) runs.push_back(runner.finish());
  return runs;
}

bool same_stream(const BalanceConfig& a, const BalanceConfig& b) {
  const auto& ra = a.router;
  const auto& rb = b.router;
  return a.shape.experts == b.shape.experts && a.shape.top_k == b.shape.top_k && a.shape.name == b.shape.name &&
         a.steps == b.steps && a.ranks == b.ranks && a.tokens_per_rank == b.tokens_per_rank &&
         ra.feature_dim == rb.feature_dim && ra.topics == rb.topics && ra.topic_spread == rb.topic_spread &&
         ra.token_noise == rb.token_noise && ra.popularity_sigma == rb.popularity_sigma &&
         ra.rank_topic_skew == rb.rank_topic_skew && ra.drift_walk == rb.drift_walk && ra.seed == rb.seed &&
         ra.drift_feedback == 0 && rb.drift_feedback == 0;
}

}  // namespace

BalanceRun run_balance(const BalanceConfig& cfg) {
  validate(cfg);
  routing::SyntheticRouter router(cfg.shape.experts, cfg.router);
  BalanceRunner runner(cfg);
  std::vector<routing::ScoreMatrix> scores(static_cast<std::size_t>(cfg.ranks));
  for (int step = 0; step < cfg.steps; ++step) {
    for (int r = 0; r < cfg.ranks; ++r) router.score_batch(step, r, cfg.tokens_per_rank, scores[static_cast<std::size_t>(r)]);
    runner.step(step, scores);
    router.drift(step, runner.load());
  }
  return runner.finish();
}

std::vector<BalanceRun> run_balance_all(const std::vector<BalanceConfig>& configs, int threads) {
  for (const auto& c : configs) validate(c);
  // Group configurations that can share a token stream; each group is one unit of work.
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return same_stream(configs[g.front()], configs[i]); });
    if (it == groups.end())
      groups.push_back({i});
    else
      it->push_back(i);
  }
  std::vector<BalanceRun> runs(configs.size());
  core::parallel_for(groups.size(), threads, [&](std::size_t g) {
    std::vector<const BalanceConfig*> members;
    for (std::size_t i : groups[g]) members.push_back(&configs[i]);
    const BalanceConfig& first = configs[groups[g].front()];
    auto done = first.router.drift_feedback == 0 ? run_shared_stream(members)
                                                 : std::vector<BalanceRun>{run_balance(first)};
    for (std::size_t m = 0; m < done.size(); ++m) runs[groups[g][m]] = std::move(done[m]);
  });
  return runs;
}

}  // namespace k3::balancing
