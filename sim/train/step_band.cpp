#include "sim/train/step_band.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/statistics.hpp"
#include "core/threads.hpp"
#include "core/parallel_for.hpp"
#include "sim/net/network_registry.hpp"
#include "sim/train/band_factors.hpp"

namespace k3::train {

namespace {

double memory_of(const StepResult& r) { return memory_total(r.memory); }

}  // namespace

Quantiles quantiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {core::quantile_of_sorted(v, 0.1), core::quantile_of_sorted(v, 0.5), core::quantile_of_sorted(v, 0.9)};
}

std::vector<std::map<std::string, double, std::less<>>> band_samples(const std::vector<core::ProvenanceEntry>& entries,
                                                                    int samples, std::uint64_t seed,
                                                                    int network_draws, bool correlated_stacks) {
  std::vector<std::map<std::string, double, std::less<>>> out(static_cast<std::size_t>(samples));
  const bool sliced = network_draws > 0 && network_draws < samples;
  // The factors' own draws (band_factors.hpp); a factor with a link figure among its members is drawn on the link
  // figures' slice, all of it.
  for (const auto& f : band_factors(entries, correlated_stacks)) {
    const bool link = std::any_of(f.members.begin(), f.members.end(),
                                  [](const FactorMember& m) { return m.entry.id.starts_with("link."); });
    const auto u = factor_quantiles(f, link && sliced ? network_draws : samples, seed);
    for (std::size_t s = 0; s < out.size(); ++s) {
      for (const auto& m : f.members) out[s][m.entry.id] = member_value(m, u[s % u.size()]);
    }
  }
  return out;
}

namespace {

using Overrides = std::map<std::string, double, std::less<>>;

// Every step simulation a band takes, then run: the first alone (it fills the shared caches), the others spread
// over the workers.
struct BandRuns {
  std::vector<Overrides> overrides;
  std::vector<double> step_s, memory_bytes;

  std::size_t add(Overrides o) {
    overrides.push_back(std::move(o));
    return overrides.size() - 1;
  }
  void simulate(const StepSpec& base, const model::ModelSpec& model, const topo::Topology& topology,
                const cost::CalibrationProfile* profile, int threads) {
    StepReuse reuse;
    StepOptions run_options;
    run_options.trace = false;
    run_options.per_layer = false;
    run_options.threads = 1;  // the runs themselves are spread over the workers
    run_options.reuse = &reuse;
    step_s.assign(overrides.size(), 0);
    memory_bytes.assign(overrides.size(), 0);
    auto one = [&](std::size_t i) {
      StepSpec s = base;
      s.assumption_overrides = overrides[i];
      const auto r = simulate_step(s, model, topology, profile, run_options);
      step_s[i] = r.step_time_s;
      memory_bytes[i] = memory_of(r);
    };
    if (overrides.empty()) return;
    one(0);
    core::parallel_for(overrides.size() - 1, core::resolve_threads(threads), [&](std::size_t i) { one(i + 1); });
  }
};

constexpr std::size_t kPlain = static_cast<std::size_t>(-1);  // an end that is the registered value: the plain run

void rank(std::vector<Sensitivity>& ranking) {
  std::stable_sort(ranking.begin(), ranking.end(),
                   [](const Sensitivity& a, const Sensitivity& b) { return std::abs(a.swing_s()) > std::abs(b.swing_s()); });
}

}  // namespace

StepBand simulate_step_band(const StepSpec& spec, const model::ModelSpec& model, const topo::Topology& topology,
                            const cost::CalibrationProfile* profile, const StepResult& nominal,
                            const BandOptions& options) {
  StepBand band;
  if (options.samples <= 0) return band;
  const auto factors = band_factors(nominal.provenance, options.correlated_stacks);
  StepSpec base = spec;
  const bool substitute = spec.network->replays_overlapping_collectives;
  if (substitute) base.network = &net::network_model("analytical", {spec.source, "network", 0});

  BandRuns runs;
  // The registered values on the analytical model: the scale of every run (first, so that it fills the caches).
  const std::size_t reference = substitute ? runs.add({}) : kPlain;
  // Each factor at its slow end (u = 0) and at its fast end (u = 1); an end where every member already sits at its
  // registered value (a datasheet link rate is the top of its range) is the plain run, not run again.
  struct FactorRuns {
    double registered_position;
    std::size_t slow, fast;  // run indices
  };
  std::vector<FactorRuns> factor_runs;
  for (const auto& f : factors) {
    const double p0 = factor_position_at_registered(f);
    factor_runs.push_back({p0, factor_position_at(f, 0) < p0 ? runs.add(factor_overrides(f, 0)) : kPlain,
                           factor_position_at(f, 1) > p0 ? runs.add(factor_overrides(f, 1)) : kPlain});
  }
  std::vector<const core::ProvenanceEntry*> ranged;
  std::vector<std::pair<std::size_t, std::size_t>> entry_ends;
  for (const auto& e : nominal.provenance) {
    if (!options.entry_sensitivity || !e.has_range()) continue;
    ranged.push_back(&e);
    entry_ends.emplace_back(e.low != e.nominal ? runs.add({{e.id, e.low}}) : kPlain,
                            e.high != e.nominal ? runs.add({{e.id, e.high}}) : kPlain);
  }
  std::vector<std::size_t> sample_runs;
  if (options.simulate_each_sample) {
    for (auto& o : band_samples(nominal.provenance, options.samples, options.seed, options.network_draws,
                                options.correlated_stacks)) {
      sample_runs.push_back(runs.add(std::move(o)));
    }
  }
  runs.simulate(base, model, topology, profile, options.threads);
  const double scale = reference == kPlain ? 1.0 : nominal.step_time_s / runs.step_s[reference];
  const double plain_memory = memory_of(nominal);
  const double memory_scale = reference == kPlain ? 1.0 : plain_memory / runs.memory_bytes[reference];
  const auto step_at = [&](std::size_t i) { return i == kPlain ? nominal.step_time_s : scale * runs.step_s[i]; };
  const auto memory_at = [&](std::size_t i) {
    return i == kPlain ? plain_memory : memory_scale * runs.memory_bytes[i];
  };

  std::vector<double> step(static_cast<std::size_t>(options.samples));
  std::vector<double> memory(step.size());
  if (options.simulate_each_sample) {
    for (std::size_t s = 0; s < step.size(); ++s) {
      step[s] = step_at(sample_runs[s]);
      memory[s] = memory_at(sample_runs[s]);
    }
  } else {
    std::vector<double> log_step(step.size(), 0), log_memory(step.size(), 0);
    for (std::size_t k = 0; k < factors.size(); ++k) {
      const auto& r = factor_runs[k];
      const FactorResponse on_step{r.registered_position, std::log(step_at(r.slow) / nominal.step_time_s),
                                   std::log(step_at(r.fast) / nominal.step_time_s)};
      const FactorResponse on_memory{r.registered_position, std::log(memory_at(r.slow) / plain_memory),
                                     std::log(memory_at(r.fast) / plain_memory)};
      const auto u = factor_quantiles(factors[k], options.samples, options.seed);
      for (std::size_t s = 0; s < step.size(); ++s) {
        const double p = factor_position_at(factors[k], u[s]);
        log_step[s] += on_step.at(p);
        log_memory[s] += on_memory.at(p);
      }
    }
    for (std::size_t s = 0; s < step.size(); ++s) {
      step[s] = nominal.step_time_s * std::exp(log_step[s]);
      memory[s] = plain_memory * std::exp(log_memory[s]);
    }
  }
  band.runs = static_cast<int>(runs.overrides.size());
  band.samples = options.samples;
  const std::string on_analytical =
      substitute ? fmt::format(" on the analytical network, scaled by {:.4f} (this step on {} / on analytical)", scale,
                               spec.network->name)
                 : std::string();
  std::size_t stacks = 0;
  for (const auto& f : factors) stacks += f.is_stack ? 1 : 0;
  band.method =
      options.simulate_each_sample
          ? fmt::format("Latin hypercube of {} samples over {} factors (triangular on each range, mode at its value; "
                        "the link figures sliced into {} draws), one step simulation per sample{}; P10/P50/P90 of "
                        "the samples",
                        options.samples, factors.size(), std::min(options.network_draws, options.samples),
                        on_analytical)
          : fmt::format("Latin hypercube of {} samples over {} factors ({} software stacks, each drawn as one, and {} "
                        "numbers alone; triangular on each range, mode at its value), drawn on the response of {} "
                        "step simulations, each factor at its slow and at its fast end{} (log step time piecewise "
                        "linear in each factor, additive over factors: Rahman and Xu's univariate dimension "
                        "reduction, Probabilistic Engineering Mechanics 19(4), 2004); P10/P50/P90 of the samples",
                        options.samples, factors.size(), stacks, factors.size() - stacks, band.runs, on_analytical);
  std::vector<double> tokens, mfu;
  for (double t : step) {
    // Throughput and MFU follow the step time: tokens and model FLOPs per step do not depend on any entry.
    tokens.push_back(nominal.tokens_per_step / t);
    mfu.push_back(nominal.mfu * nominal.step_time_s / t);
  }
  band.sample_step_time_s = step;
  band.step_time_s = quantiles(step);
  band.tokens_per_s = quantiles(tokens);
  band.mfu = quantiles(mfu);
  band.memory_bytes_per_gpu = quantiles(memory);
  for (std::size_t k = 0; k < factors.size(); ++k) {
    Sensitivity s{factors[k].name, factors[k].is_stack, {}, step_at(factor_runs[k].slow),
                  step_at(factor_runs[k].fast)};
    for (const auto& m : factors[k].members) s.members.push_back(m.entry);
    band.sensitivity.push_back(std::move(s));
  }
  for (std::size_t k = 0; k < ranged.size(); ++k) {
    band.entry_sensitivity.push_back(
        {ranged[k]->id, false, {*ranged[k]}, step_at(entry_ends[k].first), step_at(entry_ends[k].second)});
  }
  rank(band.sensitivity);
  rank(band.entry_sensitivity);
  return band;
}

}  // namespace k3::train
