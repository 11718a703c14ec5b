#include "sweep/plan_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>

#include "core/error.hpp"
#include "core/wall_clock.hpp"
#include "core/parallel_for.hpp"
#include "core/units.hpp"
#include "sim/train/step_simulator.hpp"
#include "sweep/layout_rules.hpp"
#include "sweep/layout_space.hpp"
#include "sweep/pareto.hpp"
#include "sweep/plan_recheck.hpp"
#include "sweep/sweep_output.hpp"

namespace k3::sweep {

namespace {

using core::InputError;

// The model and the cluster are resolved once for the whole search; a key that would change them per
// candidate is refused rather than silently ignored.
void refuse_resolved_keys(const std::string& flag, const std::string& key) {
  if (changes_resolved_inputs(key)) {
    throw InputError({flag, key, 0}, "plan searches one model on one cluster, resolved once",
                     "a key of the step (parallel.*, batch.*, recompute, ...); the model and cluster come from the "
                     "scenario, --set and --gpus");
  }
}

train::StepResult simulate_candidate(const PlanBase& base, const PlanOptions& o, const GridPoint& point,
                                     const char* network, train::StepReuse& reuse) {
  // Its report text is not kept: a candidate is summarized (summarize()), never reported whole.
  const auto step = input::parse_scenario(base.yaml_text, base.source, candidate_overrides(base, o, point, network), false);
  return train::simulate_step(step, base.inputs.model, *base.inputs.topology, base.inputs.profile_or_null(),
                              candidate_step_options(reuse));
}

PlanCandidate summarize(const GridPoint& point, const train::StepResult& r) {
  PlanCandidate c;
  c.settings = point;
  c.feasible = r.fits_in_memory;
  if (!c.feasible) {
    c.reason = fmt::format("does not fit in memory: {:.1f} GiB per GPU on its most loaded pipeline rank, more than the "
                           "{:.1f} GiB of HBM",
                           train::memory_total(r.memory) / core::kGiB, r.hbm_bytes / core::kGiB);
  }
  c.step_time_s = r.step_time_s;
  c.tokens_per_s = r.tokens_per_s;
  c.mfu = r.mfu;
  c.memory_bytes = train::memory_total(r.memory);
  c.hbm_bytes = r.hbm_bytes;
  if (r.cost_per_trillion_tokens > 0) c.cost_per_trillion_tokens_usd = r.cost_per_trillion_tokens;
  for (const auto& s : r.breakdown) c.breakdown_s[s.name] += s.seconds;
  return c;
}

std::string settings_text(const GridPoint& point) {
  std::string out;
  for (const auto& s : point) out += fmt::format("{}{}={}", out.empty() ? "" : " ", s.key, s.value);
  return out.empty() ? "(base)" : out;
}

nlohmann::json candidate_to_json(const PlanCandidate& c) {
  nlohmann::json settings = nlohmann::json::array();
  for (const auto& o : c.settings) settings.push_back({o.key, o.value});
  nlohmann::json j{{"settings", settings},         {"feasible", c.feasible},       {"reason", c.reason},
                   {"step_time_s", c.step_time_s}, {"tokens_per_s", c.tokens_per_s}, {"mfu", c.mfu},
                   {"memory_bytes", c.memory_bytes}, {"hbm_bytes", c.hbm_bytes},   {"breakdown_s", c.breakdown_s},
                   {"lower_bound_s", c.lower_bound_s}, {"grid_index", c.grid_index}};
  if (c.cost_per_trillion_tokens_usd) j["cost"] = *c.cost_per_trillion_tokens_usd;
  return j;
}

PlanCandidate candidate_from_json(const nlohmann::json& j) {
  PlanCandidate c;
  for (const auto& o : j.at("settings")) c.settings.push_back({o.at(0).get<std::string>(), o.at(1).get<std::string>()});
  c.feasible = j.at("feasible").get<bool>();
  c.reason = j.at("reason").get<std::string>();
  c.step_time_s = j.at("step_time_s").get<double>();
  c.tokens_per_s = j.at("tokens_per_s").get<double>();
  c.mfu = j.at("mfu").get<double>();
  c.memory_bytes = j.at("memory_bytes").get<double>();
  c.hbm_bytes = j.at("hbm_bytes").get<double>();
  c.breakdown_s = j.at("breakdown_s").get<std::map<std::string, double>>();
  c.lower_bound_s = j.at("lower_bound_s").get<double>();
  c.grid_index = j.at("grid_index").get<std::size_t>();
  if (j.contains("cost")) c.cost_per_trillion_tokens_usd = j.at("cost").get<double>();
  return c;
}

// Best first: candidates in the order of their bounds (`order`), simulated a round at a time; a candidate whose
// bound exceeds the step time of the `exact`-th best feasible one simulated so far cannot enter the top
// `exact`, nor can any after it, so the search stops there (exact 0: never). The rounds have a fixed size, not
// one tied to the thread or rank count, so the set simulated is the same on any number of cores. Returns the
// first candidates of `order`, simulated; `feasible_times` receives their feasible step times, ascending.
std::vector<PlanCandidate> simulate_best_first(const std::vector<std::size_t>& order, const std::vector<double>& bound_s,
                                               std::size_t exact, const SpreadWork& spread,
                                               const std::function<PlanCandidate(std::size_t)>& simulate,
                                               std::vector<double>& feasible_times) {
  constexpr std::size_t kRound = 16;
  std::vector<PlanCandidate> simulated;
  std::size_t next = 0;
  while (next < order.size()) {
    const double threshold = exact == 0 || feasible_times.size() < exact ? std::numeric_limits<double>::infinity()
                                                                          : feasible_times[exact - 1];
    std::vector<std::size_t> round;
    while (next < order.size() && round.size() < kRound && bound_s[order[next]] <= threshold) round.push_back(order[next++]);
    if (round.empty()) break;
    const auto results =
        spread(round.size(), each_index([&](std::size_t r) { return candidate_to_json(simulate(round[r])).dump(); }));
    for (const auto& text : results) {
      auto c = candidate_from_json(nlohmann::json::parse(text));
      if (c.feasible) {
        feasible_times.insert(std::upper_bound(feasible_times.begin(), feasible_times.end(), c.step_time_s), c.step_time_s);
      }
      simulated.push_back(std::move(c));
    }
  }
  return simulated;
}

double objective_of(const PlanCandidate& c, PlanObjective o) {
  return o == PlanObjective::cost ? c.cost_per_trillion_tokens_usd.value_or(0) : c.step_time_s;
}

}  // namespace

void rank_candidates(std::vector<PlanCandidate>& candidates, PlanObjective objective) {
  std::stable_sort(candidates.begin(), candidates.end(), [&](const PlanCandidate& a, const PlanCandidate& b) {
    if (a.feasible != b.feasible) return a.feasible;
    if (a.feasible && objective_of(a, objective) != objective_of(b, objective)) {
      return objective_of(a, objective) < objective_of(b, objective);
    }
    if (a.feasible && a.headroom_bytes() != b.headroom_bytes()) return a.headroom_bytes() > b.headroom_bytes();
    return a.grid_index < b.grid_index;
  });
}

bool changes_resolved_inputs(const std::string& key) {
  return key == "model" || key.starts_with("cluster.") || key == "cluster" || key == "profile";
}

SpreadWork spread_on_threads(int threads) {
  return [threads](std::size_t n, const BatchJob& batch) {
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    return batch(all, threads);
  };
}

BatchJob each_index(std::function<std::string(std::size_t)> job) {
  return [job = std::move(job)](const std::vector<std::size_t>& indices, int threads) {
    std::vector<std::string> out(indices.size());
    core::parallel_for(indices.size(), threads, [&](std::size_t k) { out[k] = job(indices[k]); });
    return out;
  };
}

std::optional<RuleFailure> check_point_rules(const PlanBase& base, const std::vector<input::Override>& extra,
                                             const GridPoint& point,
                                             const std::function<void(const input::Scenario&)>& on_survivor) {
  const auto& topo = *base.inputs.topology;
  const ClusterShape cluster{static_cast<std::int64_t>(topo.gpu_count()), topo.gpus_per_node(),
                             topo.gpu_type().hbm_bytes};
  auto overrides = base.sets;
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  overrides.insert(overrides.end(), point.begin(), point.end());
  try {
    const auto step = input::parse_scenario(base.yaml_text, base.source, overrides, false);
    auto refusal = check_layout_rules(step, base.inputs.model, cluster);
    if (!refusal && on_survivor) on_survivor(step);
    return refusal;
  } catch (const InputError& e) {
    return RuleFailure{e.where().key.empty() ? std::string("scenario") : e.where().key, e.what()};
  }
}

std::vector<std::optional<RuleFailure>> check_points_rules(const PlanBase& base,
                                                           const std::vector<input::Override>& extra,
                                                           const std::vector<GridPoint>& points, int threads) {
  std::vector<std::optional<RuleFailure>> refusals(points.size());
  core::parallel_for(points.size(), threads, [&](std::size_t i) { refusals[i] = check_point_rules(base, extra, points[i], {}); });
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
  // The --grid axes are checked value by value against the base; the default axes hold only values the
  // scenario reads, and their combinations (vpp 2 needs an interleaved schedule) are the rules' business.
  validate_grid(base.yaml_text, base.source, base.sets, o.axes);
  const auto points = expand_grid(out.axes);
  out.candidates = points.size();

  const double start_s = core::wall_clock_s();
  // Rules first, on every core: each candidate parsed as `run --set` would and checked without simulating;
  // each survivor's step-time lower bound from its compute and optimizer step alone
  // (train::step_time_lower_bound), on the step the rules parsed. A bound that cannot be built stays 0: the
  // candidate is simulated and kept with the reason the simulation gives.
  auto fixes_on_analytical = o.fixes;
  fixes_on_analytical.push_back({"network", "analytical"});
  const SpreadWork spread = o.spread ? o.spread : spread_on_threads(o.threads);
  const auto checked = spread(points.size(), each_index([&](std::size_t i) {
    double bound = 0;
    const auto refusal = check_point_rules(base, fixes_on_analytical, points[i], [&](const input::Scenario& step) {
      try {
        bound = train::step_time_lower_bound(step, base.inputs.model, *base.inputs.topology, base.inputs.profile_or_null());
      } catch (const InputError&) {
      }
    });
    return (refusal ? nlohmann::json{{"rule", refusal->rule}, {"message", refusal->message}} : nlohmann::json{{"bound", bound}})
        .dump();
  }));
  std::vector<std::size_t> survivors;
  std::vector<double> bound_s;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto j = nlohmann::json::parse(checked[i]);
    if (j.contains("bound")) {
      survivors.push_back(i);
      bound_s.push_back(j.at("bound").get<double>());
      continue;
    }
    auto& count = out.pruned[j.at("rule").get<std::string>()];
    if (count.candidates++ == 0) count.example = j.at("message").get<std::string>();
  }

  // Candidates whose bound misses the goal are out; the rest run best bound first (simulate_best_first).
  // With a fixed GPU count the cost objective ranks as step time does, so the bound serves both.
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < survivors.size(); ++k) {
    if (o.goal_step_time_s && bound_s[k] > *o.goal_step_time_s) {
      auto& count = out.pruned[kGoalRule];
      if (count.candidates++ == 0) {
        count.example = fmt::format(
            "{}: its passes' compute and its optimizer step alone take {:.3f} s a step, more than the goal's {:.3f} s",
            settings_text(points[survivors[k]]), bound_s[k], *o.goal_step_time_s);
      }
      continue;
    }
    order.push_back(k);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bound_s[a] < bound_s[b]; });
  const std::size_t exact = std::max<std::size_t>(static_cast<std::size_t>(std::max(o.top_k, 0)), o.exact_rows);
  out.exact_rows = o.exhaustive ? order.size() : exact;

  std::unique_ptr<core::Progress> progress;
  if (o.progress != nullptr && !order.empty()) {
    progress = std::make_unique<core::Progress>(order.size(), o.progress, o.progress_mode, "plan", "layouts simulated");
  }
  train::StepReuse reuse;
  const auto simulate = [&](std::size_t k) {
    const auto& point = points[survivors[k]];
    PlanCandidate c;
    try {
      c = summarize(point, simulate_candidate(base, o, point, "analytical", reuse));
    } catch (const InputError& e) {
      // A rule the up-front checks do not make (found while the step is built): kept with its reason.
      c.settings = point;
      c.reason = e.what();
    }
    c.lower_bound_s = bound_s[k];
    c.grid_index = survivors[k];
    if (progress) progress->done_one();
    return c;
  };
  std::vector<double> feasible_times;  // sorted
  auto simulated = simulate_best_first(order, bound_s, o.exhaustive ? 0 : exact, spread, simulate, feasible_times);
  const std::size_t next = simulated.size();
  if (next < order.size()) {
    auto& count = out.pruned[kBoundRule];
    count.candidates = order.size() - next;
    count.example = fmt::format("{}: its passes' compute and its optimizer step alone take {:.3f} s a step, more "
                                "than the {} s of the {}th best simulated, so it cannot enter the top {}",
                                settings_text(points[survivors[order[next]]]), bound_s[order[next]],
                                fmt::format("{:.3f}", feasible_times[exact - 1]), exact, exact);
  }
  if (progress) progress->finish();
  out.simulated = simulated.size();
  out.search_wall_s = core::wall_clock_s() - start_s;

  rank_candidates(simulated, o.objective);
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
  const double flow_start_s = core::wall_clock_s();
  const std::size_t replayed_before = reuse.replays->replayed(), reused_before = reuse.replays->reused();
  const auto reruns = spread(top, [&](const std::vector<std::size_t>& indices, int threads) {
    return flow_rechecks(base, o, simulated, indices, threads, reuse);
  });
  std::vector<double> flow_s;
  std::vector<std::vector<double>> samples;
  for (std::size_t i = 0; i < top; ++i) {
    const auto j = nlohmann::json::parse(reruns[i]);
    flow_s.push_back(j.at("flow_step_time_s").get<double>());
    simulated[i].flow_step_time_s = flow_s.back();
    if (i > 0 && flow_s[i] < flow_s[i - 1]) out.flow_changes_ranking = true;
    if (!j.contains("band")) continue;
    const auto& q = j.at("band");
    simulated[i].band_step_time_s = train::Quantiles{q.at(0).get<double>(), q.at(1).get<double>(), q.at(2).get<double>()};
    samples.push_back(j.at("samples").get<std::vector<double>>());
  }
  out.flow_wall_s = core::wall_clock_s() - flow_start_s;
  out.flow_passes_replayed = reuse.replays->replayed() - replayed_before;
  out.flow_passes_reused = reuse.replays->reused() - reused_before;
  if (o.band_samples > 0 && top > 0) band_verdict(flow_s, samples, o.band_samples, out);
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
  j["exact_rows"] = r.exact_rows;
  j["search_wall_s"] = r.search_wall_s;
  j["candidates_per_s"] = r.search_wall_s > 0 ? static_cast<double>(r.candidates) / r.search_wall_s : 0.0;
  j["flow_wall_s"] = r.flow_wall_s;
  j["flow_passes_replayed"] = r.flow_passes_replayed;
  j["flow_passes_reused"] = r.flow_passes_reused;
  j["flow_changes_top_ranking"] = r.flow_changes_ranking;
  if (r.band_samples > 0) {
    j["band"] = {{"samples", r.band_samples},
                 {"winner_holds", r.band_winner_holds},
                 {"order_holds", r.band_order_holds}};
  }
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
      if (c.cost_per_trillion_tokens_usd) e["cost_per_trillion_tokens_usd"] = *c.cost_per_trillion_tokens_usd;
    }
    if (c.memory_bytes > 0) {  // also for a layout over memory, which is not timed
      e["memory_gib"] = c.memory_bytes / core::kGiB;
      e["memory_headroom_gib"] = c.headroom_bytes() / core::kGiB;
    }
    e["lower_bound_s"] = c.lower_bound_s;
    e["pareto"] = c.pareto;
    if (c.flow_step_time_s) e["flow_step_time_s"] = *c.flow_step_time_s;
    if (c.band_step_time_s) {
      e["band_step_time_s"] = {{"p10", c.band_step_time_s->p10}, {"p50", c.band_step_time_s->p50}, {"p90", c.band_step_time_s->p90}};
    }
    ranked.push_back(e);
  }
  j["ranked"] = ranked;
  return j;
}

std::string plan_to_csv(const PlanResult& r) {
  std::string text = "rank";
  for (const auto& a : r.axes) text += "," + csv_field(a.key);
  text += ",feasible,step_time_s,flow_step_time_s,lower_bound_s,tokens_per_s,tokens_per_day,memory_gib,"
          "memory_headroom_gib,cost_per_trillion_tokens_usd,mfu,pareto,band_p10_s,band_p90_s,reason\n";
  int rank = 0;
  for (const auto& c : r.ranked) {
    text += std::to_string(++rank);
    for (const auto& s : c.settings) text += "," + csv_field(s.value);  // one per axis, in axis order
    const auto band = [&](double train::Quantiles::*q) {
      return c.band_step_time_s ? fmt::format("{}", (*c.band_step_time_s).*q) : std::string();
    };
    text += fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", c.feasible, c.step_time_s,
                        c.flow_step_time_s ? fmt::format("{}", *c.flow_step_time_s) : "", c.lower_bound_s,
                        c.tokens_per_s, c.tokens_per_s * 86400, c.memory_bytes / core::kGiB,
                        c.headroom_bytes() / core::kGiB,
                        c.cost_per_trillion_tokens_usd ? fmt::format("{}", *c.cost_per_trillion_tokens_usd) : "",
                        c.mfu, c.pareto, band(&train::Quantiles::p10), band(&train::Quantiles::p90), csv_field(c.reason));
  }
  return text;
}

}  // namespace k3::sweep
