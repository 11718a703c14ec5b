#include "sim/train/step_band.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/statistics.hpp"
#include "core/threads.hpp"
#include "core/parallel_for.hpp"
#include "core/rng.hpp"
#include "sim/net/network_registry.hpp"
#include "sim/train/stack_factors.hpp"

namespace k3::train {

namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// Inverse CDF of the triangular distribution on [a, b] with mode c.
double triangular(double u, double a, double c, double b) {
  const double fc = (c - a) / (b - a);
  if (u < fc) return a + std::sqrt(u * (b - a) * (c - a));
  return b - std::sqrt((1 - u) * (b - a) * (b - c));
}

double memory_of(const StepResult& r) { return memory_total(r.memory); }

}  // namespace

Quantiles quantiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {core::quantile_of_sorted(v, 0.1), core::quantile_of_sorted(v, 0.5), core::quantile_of_sorted(v, 0.9)};
}

namespace {

// Quantiles 0..1 of a hypercube of `n` points: one per stratum in a shuffled order, jittered inside it.
std::vector<double> stratified_quantiles(int n, core::Rng rng) {
  std::vector<int> strata(static_cast<std::size_t>(n));
  std::iota(strata.begin(), strata.end(), 0);
  for (std::size_t i = strata.size(); i > 1; --i) std::swap(strata[i - 1], strata[rng.below(i)]);
  std::vector<double> u;
  for (int k = 0; k < n; ++k) u.push_back((strata[static_cast<std::size_t>(k)] + rng.uniform()) / n);
  return u;
}

}  // namespace

std::vector<std::map<std::string, double, std::less<>>> band_samples(const std::vector<core::ProvenanceEntry>& entries,
                                                                    int samples, std::uint64_t seed,
                                                                    int network_draws, bool correlated_stacks) {
  std::vector<std::map<std::string, double, std::less<>>> out(static_cast<std::size_t>(samples));
  const bool sliced = network_draws > 0 && network_draws < samples;
  auto is_link = [](const core::ProvenanceEntry& e) { return e.id.rfind("link.", 0) == 0; };
  // A stack with a link figure among its members is drawn on the link figures' slice, all of it: its members
  // share one quantile per sample.
  std::map<std::string_view, int> stack_draws;
  for (const auto& e : entries) {
    if (!e.has_range() || !correlated_stacks) continue;
    if (const auto m = stack_of(e.id)) {
      int& n = stack_draws.emplace(m->stack, samples).first->second;
      if (is_link(e) && sliced) n = network_draws;
    }
  }
  std::map<std::string_view, std::vector<double>> stack_quantiles;
  for (const auto& [stack, n] : stack_draws) {
    stack_quantiles[stack] = stratified_quantiles(n, core::Rng(seed ^ fnv1a("stack:") ^ fnv1a(stack)));
  }
  for (const auto& e : entries) {
    if (!e.has_range()) continue;
    const auto m = correlated_stacks ? stack_of(e.id) : std::nullopt;
    std::vector<double> u;
    if (m) {
      u = stack_quantiles.at(m->stack);
      if (!m->faster_when_larger) {
        for (double& x : u) x = 1 - x;
      }
    } else {
      u = stratified_quantiles(is_link(e) && sliced ? network_draws : samples, core::Rng(seed ^ fnv1a(e.id)));
    }
    for (std::size_t s = 0; s < out.size(); ++s) {
      out[s][e.id] = std::clamp(triangular(u[s % u.size()], e.low, e.nominal, e.high), e.low, e.high);
    }
  }
  return out;
}

StepBand simulate_step_band(const StepSpec& spec, const model::ModelSpec& model, const topo::Topology& topology,
                            const cost::CalibrationProfile* profile, const StepResult& nominal,
                            const BandOptions& options) {
  StepBand band;
  if (options.samples <= 0) return band;
  std::vector<const core::ProvenanceEntry*> ranged;
  for (const auto& e : nominal.provenance) {
    if (e.has_range()) ranged.push_back(&e);
  }
  // Every run: the hypercube samples, then each ranged entry at its low and its high end; an end that is the
  // entry's own value (a datasheet link rate is the top of its range) is the reference run, not run again.
  auto runs = band_samples(nominal.provenance, options.samples, options.seed, options.network_draws,
                           options.correlated_stacks);
  std::vector<std::pair<std::size_t, std::size_t>> ends;  // run index of each entry's low and high end
  constexpr std::size_t kReference = static_cast<std::size_t>(-1);
  for (const auto* e : ranged) {
    if (!options.sensitivity) break;
    std::pair<std::size_t, std::size_t> at{kReference, kReference};
    if (e->low != e->nominal) {
      at.first = runs.size();
      runs.push_back({{e->id, e->low}});
    }
    if (e->high != e->nominal) {
      at.second = runs.size();
      runs.push_back({{e->id, e->high}});
    }
    ends.push_back(at);
  }
  StepSpec base = spec;
  const bool substitute = spec.network->replays_overlapping_collectives;
  if (substitute) base.network = &net::network_model("analytical", {spec.source, "network", 0});
  StepReuse reuse;
  StepOptions run_options;
  run_options.trace = false;
  run_options.per_layer = false;
  run_options.threads = 1;  // the runs themselves are spread over the workers
  run_options.reuse = &reuse;
  // The reference run fills the shared caches before the others start.
  const StepResult reference = simulate_step(base, model, topology, profile, run_options);
  const double scale = nominal.step_time_s / reference.step_time_s;
  std::vector<double> step_s(runs.size());
  std::vector<double> memory(runs.size());
  const int threads = core::resolve_threads(options.threads);
  core::parallel_for(runs.size(), threads, [&](std::size_t i) {
    StepSpec s = base;
    s.assumption_overrides = runs[i];
    const auto r = simulate_step(s, model, topology, profile, run_options);
    step_s[i] = scale * r.step_time_s;
    memory[i] = memory_of(r);
  });
  band.runs = static_cast<int>(runs.size()) + 1;
  band.samples = options.samples;
  band.method = fmt::format(
      "Latin hypercube of {} samples over the {} ranged provenance entries (triangular on each range, mode at its "
      "value; the link figures sliced into {} draws{}), one step simulation per sample{}; P10/P50/P90 of the samples",
      options.samples, ranged.size(), std::min(options.network_draws, options.samples),
      options.correlated_stacks ? "; the kernel stack's and the communication stack's members each drawn as one factor"
                                : "",
      substitute ? fmt::format(" on the analytical network, scaled by {:.4f} (this step on {} / on analytical)", scale,
                               spec.network->name)
                 : std::string());
  std::vector<double> step, tokens, mfu, mem;
  for (std::size_t i = 0; i < static_cast<std::size_t>(options.samples); ++i) {
    step.push_back(step_s[i]);
    // Throughput and MFU follow the step time: tokens and model FLOPs per step do not depend on any entry.
    tokens.push_back(nominal.tokens_per_step / step_s[i]);
    mfu.push_back(nominal.mfu * nominal.step_time_s / step_s[i]);
    mem.push_back(memory[i]);
  }
  band.sample_step_time_s = step;
  band.step_time_s = quantiles(step);
  band.tokens_per_s = quantiles(tokens);
  band.mfu = quantiles(mfu);
  band.memory_bytes_per_gpu = quantiles(mem);
  const auto at = [&](std::size_t i) { return i == kReference ? nominal.step_time_s : step_s[i]; };
  for (std::size_t k = 0; k < ends.size(); ++k) {
    band.sensitivity.push_back({*ranged[k], at(ends[k].first), at(ends[k].second)});
  }
  std::stable_sort(band.sensitivity.begin(), band.sensitivity.end(),
                   [](const Sensitivity& a, const Sensitivity& b) { return std::abs(a.swing_s()) > std::abs(b.swing_s()); });
  return band;
}

}  // namespace k3::train
