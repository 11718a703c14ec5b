#include "sweep/plan_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "core/units.hpp"
#include "sim/train/step_simulator.hpp"
#include "sweep/layout_rules.hpp"
#include "sweep/layout_space.hpp"
#include "sweep/pareto.hpp"

namespace k3::sweep {

namespace {

using core::InputError;

double plan_clock_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The model and the cluster are resolved once for the whole search; a key that would change them per
// candidate is refused rather than silently ignored.
void refuse_resolved_keys(const std::string& flag, const std::string& key) {
  if (changes_resolved_inputs(key)) {
    throw InputError({flag, key, 0}, "plan searches one model on one cluster, resolved once",
                     "a key of the step (parallel.*, batch.*, recompute, ...); the model and cluster come from the "
                     "scenario, --set and --gpus");
  }
}

std::vector<input::Override> candidate_overrides(const PlanBase& base, const PlanOptions& o, const GridPoint& point,
                                                 const char* network) {
  auto out = base.sets;
  out.insert(out.end(), o.fixes.begin(), o.fixes.end());
  out.insert(out.end(), point.begin(), point.end());
  out.push_back({"network", network});
  return out;
}

train::StepResult simulate_candidate(const PlanBase& base, const PlanOptions& o, const GridPoint& point,
                                     const char* network) {
  const auto step = input::parse_scenario(base.yaml_text, base.source, candidate_overrides(base, o, point, network));
  train::StepOptions opt;
  opt.trace = false;
  opt.per_layer = false;  // the per-layer tables do not enter the ranking
  opt.threads = 1;        // the candidates themselves share the cores
  return train::simulate_step(step, base.inputs.model, *base.inputs.topology, base.inputs.profile_or_null(), opt);
}

PlanCandidate summarize(const GridPoint& point, const train::StepResult& r) {
  PlanCandidate c;
  c.settings = point;
  c.feasible = r.fits_in_memory;
  if (!c.feasible) c.reason = "does not fit in memory";
  c.step_time_s = r.step_time_s;
  c.tokens_per_s = r.tokens_per_s;
  c.mfu = r.mfu;
  c.memory_bytes = train::memory_total(r.memory);
  c.hbm_bytes = r.hbm_bytes;
  if (r.cost_per_trillion_tokens > 0) c.cost_per_trillion_tokens_usd = r.cost_per_trillion_tokens;
  for (const auto& s : r.breakdown) c.breakdown_s[s.name] += s.seconds;
  return c;
}

double objective_of(const PlanCandidate& c, PlanObjective o) {
  return o == PlanObjective::cost ? c.cost_per_trillion_tokens_usd.value_or(0) : c.step_time_s;
}

}  // namespace

bool changes_resolved_inputs(const std::string& key) {
  return key == "model" || key.starts_with("cluster.") || key == "cluster" || key == "profile";
}

std::vector<std::optional<RuleFailure>> check_points_rules(const PlanBase& base,
                                                           const std::vector<input::Override>& extra,
                                                           const std::vector<GridPoint>& points, int threads) {
  const auto& topo = *base.inputs.topology;
  const ClusterShape cluster{static_cast<std::int64_t>(topo.gpu_count()), topo.gpus_per_node(),
                             topo.gpu_type().hbm_bytes};
  std::vector<std::optional<RuleFailure>> refusals(points.size());
  core::parallel_for(points.size(), threads, [&](std::size_t i) {
    auto overrides = base.sets;
    overrides.insert(overrides.end(), extra.begin(), extra.end());
    overrides.insert(overrides.end(), points[i].begin(), points[i].end());
    try {
      refusals[i] = check_layout_rules(input::parse_scenario(base.yaml_text, base.source, overrides),
                                       base.inputs.model, cluster);
    } catch (const InputError& e) {
      refusals[i] = RuleFailure{e.where().key.empty() ? std::string("scenario") : e.where().key, e.what()};
    }
  });
  return refusals;
}

PlanResult plan_layouts(const PlanBase& base, const PlanOptions& o) {
  for (const auto& f : o.fixes) refuse_resolved_keys("--fix", f.key);
  for (const auto& a : o.axes) refuse_resolved_keys("--grid", a.key);
  if (o.top_k < 0) throw InputError({"--top", "", 0}, "negative count", "0 or more candidates to re-run on flow");
  const auto& topo = *base.inputs.topology;
  if (o.objective == PlanObjective::cost && !base.inputs.scenario.price_per_gpu_hour) {
    throw InputError({base.source, "price_per_gpu_hour", 0}, "--objective cost needs a GPU price",
                     "price_per_gpu_hour in the scenario or --set price_per_gpu_hour=USD");
  }
  const ClusterShape cluster{static_cast<std::int64_t>(topo.gpu_count()), topo.gpus_per_node(),
                             topo.gpu_type().hbm_bytes};
  PlanResult out;
  out.gpus = cluster.gpus;
  out.axes = plan_axes(default_layout_axes(base.inputs.model, cluster.gpus, cluster.gpus_per_node), o.fixes, o.axes);
  validate_grid(base.yaml_text, base.source, base.sets, out.axes);
  const auto points = expand_grid(out.axes);
  out.candidates = points.size();

  const double start_s = plan_clock_s();
  // Rules first, on every core: each candidate parsed as `run --set` would and checked without simulating.
  auto fixes_on_analytical = o.fixes;
  fixes_on_analytical.push_back({"network", "analytical"});
  const auto refusals = check_points_rules(base, fixes_on_analytical, points, o.threads);
  std::vector<std::size_t> survivors;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!refusals[i]) {
      survivors.push_back(i);
      continue;
    }
    auto& count = out.pruned[refusals[i]->rule];
    if (count.candidates++ == 0) count.example = refusals[i]->message;
  }

  std::unique_ptr<Progress> progress;
  if (o.progress != nullptr) {
    progress = std::make_unique<Progress>(survivors.size(), o.progress, o.progress_terminal, "plan");
  }
  std::vector<PlanCandidate> simulated(survivors.size());
  core::parallel_for(survivors.size(), o.threads, [&](std::size_t k) {
    const auto& point = points[survivors[k]];
    try {
      simulated[k] = summarize(point, simulate_candidate(base, o, point, "analytical"));
    } catch (const InputError& e) {
      // A rule the up-front checks do not make (found while the step is built): kept with its reason.
      simulated[k].settings = point;
      simulated[k].reason = e.what();
    }
    if (progress) progress->done_one();
  });
  if (progress) progress->finish();
  out.simulated = survivors.size();
  out.search_wall_s = plan_clock_s() - start_s;

  // Feasible first by the objective, ties in grid order (the sort is stable), so the ranking is deterministic.
  std::stable_sort(simulated.begin(), simulated.end(), [&](const PlanCandidate& a, const PlanCandidate& b) {
    if (a.feasible != b.feasible) return a.feasible;
    return a.feasible && objective_of(a, o.objective) < objective_of(b, o.objective);
  });
  std::vector<Objective2> front_points;
  std::size_t feasible = 0;
  for (const auto& c : simulated) {
    if (!c.feasible) break;
    ++feasible;
    front_points.push_back({o.objective == PlanObjective::cost ? c.cost_per_trillion_tokens_usd.value_or(0)
                                                               : static_cast<double>(out.gpus),
                            c.step_time_s});
  }
  const auto front = pareto_front(front_points);
  for (std::size_t i = 0; i < feasible; ++i) simulated[i].pareto = front[i];

  const std::size_t top = std::min<std::size_t>(feasible, static_cast<std::size_t>(o.top_k));
  const double flow_start_s = plan_clock_s();
  core::parallel_for(top, o.threads, [&](std::size_t i) {
    simulated[i].flow_step_time_s = simulate_candidate(base, o, simulated[i].settings, "flow").step_time_s;
  });
  out.flow_wall_s = plan_clock_s() - flow_start_s;
  for (std::size_t i = 1; i < top; ++i) {
    if (*simulated[i].flow_step_time_s < *simulated[i - 1].flow_step_time_s) out.flow_changes_ranking = true;
  }
  out.ranked = std::move(simulated);
  return out;
}

std::string runner_up_loses_on(const PlanResult& r) {
  if (r.ranked.size() < 2 || !r.ranked[1].feasible) return {};
  const auto& win = r.ranked[0].breakdown_s;
  const auto& second = r.ranked[1].breakdown_s;
  std::string worst;
  double worst_s = 0;
  for (const auto& [name, s] : second) {
    const auto w = win.find(name);
    const double grow = s - (w == win.end() ? 0.0 : w->second);
    if (grow > worst_s) worst_s = grow, worst = name;
  }
  if (worst.empty()) return {};
  return fmt::format("+{:.3f} s {}", worst_s, worst);
}

nlohmann::json plan_to_json(const PlanResult& r, PlanObjective objective) {
  using nlohmann::json;
  json j;
  j["gpus"] = r.gpus;
  j["objective"] = objective == PlanObjective::cost ? "cost" : "time";
  json axes = json::object();
  for (const auto& a : r.axes) axes[a.key] = a.values;
  j["space"] = axes;
  j["candidates"] = r.candidates;
  json pruned = json::object();
  std::size_t pruned_total = 0;
  for (const auto& [rule, c] : r.pruned) {
    pruned[rule] = {{"candidates", c.candidates}, {"example", c.example}};
    pruned_total += c.candidates;
  }
  j["pruned"] = pruned;
  j["pruned_total"] = pruned_total;
  j["simulated"] = r.simulated;
  j["search_wall_s"] = r.search_wall_s;
  j["candidates_per_s"] = r.search_wall_s > 0 ? static_cast<double>(r.candidates) / r.search_wall_s : 0.0;
  j["flow_wall_s"] = r.flow_wall_s;
  j["flow_changes_top_ranking"] = r.flow_changes_ranking;
  j["runner_up_loses_on"] = runner_up_loses_on(r);
  json ranked = json::array();
  for (const auto& c : r.ranked) {
    json e;
    json settings = json::object();
    for (const auto& s : c.settings) settings[s.key] = s.value;
    e["settings"] = settings;
    e["feasible"] = c.feasible;
    if (!c.reason.empty()) e["reason"] = c.reason;
    if (c.step_time_s > 0) {
      e["step_time_s"] = c.step_time_s;
      e["tokens_per_s"] = c.tokens_per_s;
      e["tokens_per_day"] = c.tokens_per_s * 86400;
      e["mfu"] = c.mfu;
      e["memory_gib"] = c.memory_bytes / core::kGiB;
      e["memory_headroom_gib"] = c.headroom_bytes() / core::kGiB;
      if (c.cost_per_trillion_tokens_usd) e["cost_per_trillion_tokens_usd"] = *c.cost_per_trillion_tokens_usd;
    }
    e["pareto"] = c.pareto;
    if (c.flow_step_time_s) e["flow_step_time_s"] = *c.flow_step_time_s;
    ranked.push_back(e);
  }
  j["ranked"] = ranked;
  return j;
}

}  // namespace k3::sweep
