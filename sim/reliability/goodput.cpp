#include "sim/reliability/goodput.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "core/quantity.hpp"
#include "core/rng.hpp"
#include "core/statistics.hpp"

namespace k3::reliability {

double young_interval_s(double save_s, double mtbf_s) { return std::sqrt(2 * save_s * mtbf_s); }

double daly_interval_s(double save_s, double mtbf_s) {
  if (save_s >= 2 * mtbf_s) return mtbf_s;
  const double x = save_s / (2 * mtbf_s);
  return std::sqrt(2 * save_s * mtbf_s) * (1 + std::sqrt(x) / 3 + x / 9) - save_s;
}

TimelineInputs timeline_inputs(const RecoverySpec& spec, const RunFacts& facts, double days, double interval_s) {
  TimelineInputs in;
  in.wall_s = days * 86400;
  const auto per_hour = job_rates_per_hour(spec.rates, facts.gpus, facts.gpus_per_node);
  for (std::size_t c = 0; c < kCauseCount; ++c) in.rates_per_s[c] = per_hour[c] / 3600;
  in.save_s = facts.checkpoint_bytes / spec.storage_write_bytes_per_s;
  in.restore_s = facts.checkpoint_bytes / spec.storage_read_bytes_per_s;
  in.restart_s = spec.restart_s;
  in.interval_s = interval_s;
  in.spare_nodes = spec.spare_nodes;
  in.repair_s = spec.repair_hours * 3600;
  in.stragglers_per_s = spec.stragglers_per_gpu_day * facts.gpus / 86400;
  in.straggler_slowdown = spec.straggler_slowdown;
  in.straggler_found_s = spec.straggler_found_s;
  return in;
}

namespace {

std::uint64_t replication_seed(std::uint64_t seed, int r) { return core::Rng::derive(seed, static_cast<std::uint64_t>(r)); }

SampleBand band_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  SampleBand b;
  b.p10 = core::quantile_of_sorted(v, 0.1);
  b.p50 = core::quantile_of_sorted(v, 0.5);
  b.p90 = core::quantile_of_sorted(v, 0.9);
  b.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  return b;
}

// A save every whole number of steps, at least one.
double whole_steps(double interval_s, double step_s) { return std::max(1.0, std::round(interval_s / step_s)) * step_s; }

}  // namespace

namespace {

std::vector<TimelineOutcome> replicate(const TimelineInputs& in, int replications, std::uint64_t seed) {
  std::vector<TimelineOutcome> out;
  out.reserve(static_cast<std::size_t>(replications));
  for (int r = 0; r < replications; ++r) out.push_back(simulate_timeline(in, replication_seed(seed, r)));
  return out;
}

IntervalPoint interval_point(double interval_s, double wall_s, const std::vector<TimelineOutcome>& outcomes) {
  double sum = 0, sum_sq = 0;
  for (const auto& t : outcomes) {
    const double e = t.useful_s / wall_s;
    sum += e;
    sum_sq += e * e;
  }
  const double n = static_cast<double>(outcomes.size());
  IntervalPoint p;
  p.interval_s = interval_s;
  p.ettr_mean = sum / n;
  const double var = n > 1 ? std::max(0.0, (sum_sq - n * p.ettr_mean * p.ettr_mean) / (n - 1)) : 0;
  p.ettr_stderr = std::sqrt(var / n);
  return p;
}

// The reported interval's replications: bands, and the means per cause.
void summarize(const std::vector<TimelineOutcome>& outcomes, double wall_s, GoodputResult& out) {
  std::vector<double> interruptions, ettr, goodput, tokens;
  for (const auto& t : outcomes) {
    double n = 0;
    for (std::size_t c = 0; c < kCauseCount; ++c) {
      n += t.interruptions[c];
      out.mean_interruptions[c] += t.interruptions[c];
      out.mean_lost_work_s[c] += t.lost_work_s[c];
      out.mean_down_s[c] += t.down_s[c];
    }
    out.mean_checkpoint_s += t.checkpoint_s;
    out.mean_straggler_s += t.straggler_slow_s + t.straggler_down_s;
    out.mean_spare_wait_s += t.spare_wait_s;
    out.mean_stragglers += t.stragglers;
    interruptions.push_back(n);
    ettr.push_back(t.useful_s / wall_s);
    goodput.push_back(t.useful_s / wall_s * out.ideal_tokens_per_s);
    tokens.push_back(t.useful_s * out.ideal_tokens_per_s);
  }
  const double n = static_cast<double>(outcomes.size());
  for (std::size_t c = 0; c < kCauseCount; ++c) {
    out.mean_interruptions[c] /= n;
    out.mean_lost_work_s[c] /= n;
    out.mean_down_s[c] /= n;
  }
  out.mean_checkpoint_s /= n;
  out.mean_straggler_s /= n;
  out.mean_spare_wait_s /= n;
  out.mean_stragglers /= n;
  out.interruptions = band_of(interruptions);
  out.ettr = band_of(ettr);
  out.goodput_tokens_per_s = band_of(goodput);
  out.tokens_trained = band_of(tokens);
}

}  // namespace

IntervalPoint evaluate_interval(const TimelineInputs& in, int replications, std::uint64_t seed) {
  return interval_point(in.interval_s, in.wall_s, replicate(in, replications, seed));
}

GoodputResult simulate_goodput(const RecoverySpec& spec, const RunFacts& facts, const GoodputOptions& options) {
  K3SIM_ASSERT(options.days > 0 && options.replications > 0 && facts.step_time_s > 0 && facts.gpus > 0,
               "goodput: days, replications, step time and GPUs must be positive");
  GoodputResult out;
  out.days = options.days;
  out.facts = facts;
  out.spec = spec;
  out.replications = options.replications;
  out.rates_per_hour = job_rates_per_hour(spec.rates, facts.gpus, facts.gpus_per_node);
  out.ideal_tokens_per_s = facts.tokens_per_step / facts.step_time_s;
  const double wall_s = options.days * 86400;
  const auto base = timeline_inputs(spec, facts, options.days, 1);
  out.save_s = base.save_s;
  out.restore_s = base.restore_s;
  double unplanned_per_s = 0;
  for (const auto c : kFailureCauses) {
    if (c != FailureCause::planned) unplanned_per_s += base.rates_per_s[static_cast<std::size_t>(c)];
  }
  out.mtbf_s = unplanned_per_s > 0 ? 1 / unplanned_per_s : wall_s;
  // Each replication's events grow with its interruptions and saves: both are bounded, so a run never hangs.
  double all_per_s = base.stragglers_per_s;
  for (const double r : base.rates_per_s) all_per_s += r;
  if (all_per_s * wall_s > kMaxEventsPerRun) {
    throw core::InputError(spec.block_where,
                           fmt::format("{} interruptions expected in {:g} days on {} GPUs",
                                       core::format_count(all_per_s * wall_s), options.days, core::format_count(facts.gpus)),
                           fmt::format("rates that interrupt the run at most {} times", core::format_count(kMaxEventsPerRun)));
  }
  const double shortest_interval_s = std::max(facts.step_time_s, wall_s / kMaxEventsPerRun);
  if (spec.checkpoint_interval_s && *spec.checkpoint_interval_s < shortest_interval_s) {
    throw core::InputError(spec.interval_where,
                           fmt::format("a save every {:g} s in {:g} days", *spec.checkpoint_interval_s, options.days),
                           fmt::format("at least {:.1f} s: one step, and at most {} saves a run", shortest_interval_s,
                                       core::format_count(kMaxEventsPerRun)));
  }
  out.young_interval_s = young_interval_s(out.save_s, out.mtbf_s);
  out.daly_interval_s = daly_interval_s(out.save_s, out.mtbf_s);

  // The scan: Daly's interval x 2^(k/4), k = -8..8, each a whole number of steps within the run and no shorter
  // than shortest_interval_s (below it a save costs so little that the interval hardly matters).
  const double daly = std::clamp(out.daly_interval_s, shortest_interval_s, wall_s);
  std::vector<TimelineOutcome> reported;  // the best interval's replications, kept for the report
  double best_ettr = 0;
  for (int k = -8; k <= 8; ++k) {
    const double tau = std::min(whole_steps(std::max(daly * std::exp2(k / 4.0), shortest_interval_s), facts.step_time_s), wall_s);
    if (!out.scan.empty() && tau <= out.scan.back().interval_s) continue;
    auto in = base;
    in.interval_s = tau;
    auto outcomes = replicate(in, options.replications, options.seed);
    out.scan.push_back(interval_point(tau, wall_s, outcomes));
    if (out.scan.size() == 1 || out.scan.back().ettr_mean > best_ettr) {
      best_ettr = out.scan.back().ettr_mean;
      out.optimum_interval_s = tau;
      reported = std::move(outcomes);
    }
  }
  out.interval_given = spec.checkpoint_interval_s.has_value();
  out.interval_s = out.interval_given ? whole_steps(*spec.checkpoint_interval_s, facts.step_time_s) : out.optimum_interval_s;
  if (out.interval_s != out.optimum_interval_s) {
    auto in = base;
    in.interval_s = out.interval_s;
    reported = replicate(in, options.replications, options.seed);
  }
  summarize(reported, wall_s, out);
  return out;
}

}  // namespace k3::reliability
