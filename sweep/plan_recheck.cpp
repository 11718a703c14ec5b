#include "sweep/plan_recheck.hpp"

#include <algorithm>
#include <functional>
#include <optional>

#include "core/parallel_for.hpp"
#include "sim/train/step_band.hpp"
#include "sim/train/step_simulator.hpp"

namespace k3::sweep {

std::vector<input::Override> candidate_overrides(const PlanBase& base, const PlanOptions& o, const GridPoint& point,
                                                const char* network) {
  auto out = base.sets;
  out.insert(out.end(), o.fixes.begin(), o.fixes.end());
  out.insert(out.end(), point.begin(), point.end());
  out.push_back({"network", network});
  return out;
}

train::StepOptions candidate_step_options(train::StepReuse& reuse) {
  train::StepOptions opt;
  opt.trace = false;
  opt.per_layer = false;  // the per-layer tables do not enter the ranking
  opt.threads = 1;        // the candidates themselves share the cores
  opt.reuse = &reuse;     // candidates share expert-load samples, collectives simulated alone and replayed passes
  opt.stop_when_over_memory = true;  // an infeasible candidate needs no times
  return opt;
}

namespace {

// A candidate's flow-network result as JSON and, with `band_samples`, its uncertainty band, drawn with the
// scenario's seed so that sample s draws every registered number the same for every candidate.
nlohmann::json flow_and_band(const PlanBase& base, const PlanOptions& o, const input::Scenario& step,
                             const train::StepResult& flow) {
  nlohmann::json j{{"flow_step_time_s", flow.step_time_s}};
  if (o.band_samples <= 0) return j;
  train::BandOptions band_options;
  band_options.samples = o.band_samples;
  band_options.seed = step.seed;
  band_options.threads = 1;  // the candidates share the cores
  const auto band = train::simulate_step_band(step, base.inputs.model, *base.inputs.topology, base.inputs.profile_or_null(),
                                              flow, band_options);
  j["band"] = {band.step_time_s.p10, band.step_time_s.p50, band.step_time_s.p90};
  j["samples"] = band.sample_step_time_s;
  return j;
}

}  // namespace

// One batch, as plan_recheck.hpp says: every candidate is prepared, then the passes of all of them run on the
// threads together, those replayed flow by flow first (the long ones), then each candidate is finished. One
// candidate per thread instead left cores idle at the tail and while one candidate waited on another's pass.
std::vector<std::string> flow_rechecks(const PlanBase& base, const PlanOptions& o, const std::vector<PlanCandidate>& top,
                                       const std::vector<std::size_t>& indices, int threads, train::StepReuse& reuse) {
  const std::size_t n = indices.size();
  std::vector<std::optional<input::Scenario>> steps(n);
  std::vector<std::optional<train::PreparedStep>> prepared(n);
  core::parallel_for(n, threads, [&](std::size_t k) {
    steps[k].emplace(input::parse_scenario(base.yaml_text, base.source,
                                           candidate_overrides(base, o, top[indices[k]].settings, "flow"), false));
    prepared[k].emplace(*steps[k], base.inputs.model, *base.inputs.topology, base.inputs.profile_or_null(),
                        candidate_step_options(reuse));
  });
  std::vector<std::pair<std::size_t, std::size_t>> tasks;  // (candidate, pass)
  for (const bool long_ones : {true, false}) {
    for (std::size_t k = 0; k < n; ++k) {
      auto* passes = prepared[k]->passes();
      for (std::size_t i = 0; passes != nullptr && i < passes->size(); ++i) {
        if (passes->replays_flows(i) == long_ones) tasks.emplace_back(k, i);
      }
    }
  }
  core::parallel_for(tasks.size(), threads, [&](std::size_t t) { prepared[tasks[t].first]->passes()->try_run(tasks[t].second); });
  std::vector<std::string> out(n);
  core::parallel_for(n, threads, [&](std::size_t k) {
    const auto flow = prepared[k]->finish();
    prepared[k].reset();
    out[k] = flow_and_band(base, o, *steps[k], flow).dump();
  });
  return out;
}

void band_verdict(const std::vector<double>& flow_s, const std::vector<std::vector<double>>& samples, int n, PlanResult& out) {
  const auto order_by = [&](const std::function<double(std::size_t)>& time) {
    std::vector<std::size_t> order(flow_s.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return time(a) < time(b); });
    return order;
  };
  const auto nominal = order_by([&](std::size_t i) { return flow_s[i]; });
  out.band_samples = n;
  for (std::size_t s = 0; s < static_cast<std::size_t>(n); ++s) {
    const auto order = order_by([&](std::size_t i) { return samples[i][s]; });
    out.band_winner_holds += order.front() == nominal.front() ? 1 : 0;
    out.band_order_holds += order == nominal ? 1 : 0;
  }
}

}  // namespace k3::sweep
