// `k3sim plan <scenario.yaml> (--gpus N | --tokens T --days D | --serve RATE) [--gpu TYPE] [--objective time|cost]
//  [--fix key=value]... [--grid key=values]... [--top K] [--exhaustive] [--set key=value]... [--jobs N]
//  [--json] [--csv FILE] [--write-best FILE]`: the best parallel layouts of the scenario's model, batch and
// precision on N GPUs of its cluster (sweep/plan_search.hpp), or the smallest cluster that trains T tokens
// in D days (sweep/cluster_plan.hpp): candidates pruned by the layout rules, a memory bound and a step-time
// lower bound before any simulation, the rest simulated on the analytical network, the top K again on the
// flow network. With --serve (cli/commands/plan_serve.hpp), the smallest serving deployment that meets an SLO.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "cli/commands/planned_scenario.hpp"
#include "cli/commands/plan_serve.hpp"
#include "core/quantity.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"
#include "core/threads.hpp"
#include "core/units.hpp"
#include "core/version.hpp"
#include "reports/sections/plan.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sweep/cluster_plan.hpp"
#include "sweep/plan_search.hpp"
#ifdef K3SIM_HAVE_MPI
#include "sweep/sweep_mpi.hpp"
#endif
#include "topologies/load.hpp"

namespace k3::cli {

namespace {

struct PlanCliOptions {
  std::string scenario;
  std::optional<std::int64_t> gpus;
  std::optional<double> tokens;
  std::optional<double> days;
  std::optional<double> serve;
  std::optional<double> ttft;
  std::optional<double> tpot;
  double attainment = 0.9;
  std::int64_t max_gpus = 131072;
  std::string gpu;
  bool exhaustive = false;
  std::string csv;
  std::string write_best;
  std::string report;
  std::string objective = "time";
  std::vector<std::string> fixes;
  std::vector<std::string> grids;
  std::vector<std::string> sets;
  int top = 3;
  int band = 16;
  int jobs = 0;
  bool json = false;
  bool quiet = false;  // no progress on stderr
  std::string profile;
};

// --fix key=value reads as --set does, but names --fix when malformed.
input::Override parse_fix(const std::string& text) {
  try {
    return input::parse_override(text);
  } catch (const core::InputError& e) {
    throw core::InputError({"--fix", "", 0}, e.problem(), "key=value, e.g. --fix parallel.tp=2");
  }
}

// The scenario's own cluster resized to `gpus` GPUs (as cluster.nodes; 0: as it is), resolved once for the search.
input::ScenarioInputs resolve_on(const std::string& text, const std::string& source,
                                 std::vector<input::Override>& sets, std::int64_t gpus, const std::string& profile) {
  auto inputs = input::resolve_scenario(input::parse_scenario(text, source, sets), profile);
  if (gpus == 0) return inputs;
  const auto per_node = inputs.topology->gpus_per_node();
  if (gpus % per_node != 0) {
    throw core::InputError({"--gpus", "", 0},
                           fmt::format("{} GPUs is not a whole number of nodes of {} GPUs", gpus, per_node),
                           fmt::format("a multiple of {}", per_node));
  }
  if (static_cast<std::int64_t>(inputs.topology->gpu_count()) == gpus) return inputs;
  sets.push_back({"cluster.nodes", std::to_string(gpus / per_node)});
  return input::resolve_scenario(input::parse_scenario(text, source, sets), profile);
}

std::string settings_text(const sweep::GridPoint& point) {
  std::string out;
  for (const auto& s : point) {
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", s.key.substr(s.key.rfind('.') + 1), s.value);
  }
  return out.empty() ? "(base)" : out;
}

void print_plan(const PlanCliOptions& o, const sweep::PlanResult& r) {
  std::size_t pruned = 0;
  for (const auto& [rule, c] : r.pruned) pruned += c.candidates;
  const double rate = r.search_wall_s > 0 ? static_cast<double>(r.candidates) / r.search_wall_s : 0;
  fmt::print("{} on {} GPUs, objective {}: {} candidates, {} not simulated, {} simulated (analytical "
             "network) in {:.1f} s ({:.1f} candidates/s)\n",
             o.scenario, r.gpus, o.objective, r.candidates, pruned, r.simulated, r.search_wall_s, rate);
  for (const auto& [rule, c] : r.pruned) {
    fmt::print("  pruned by {:<26} {:>5}  e.g. {}\n", rule, c.candidates, c.example);
  }
  std::size_t infeasible = 0;
  for (const auto& c : r.ranked) infeasible += c.feasible ? 0 : 1;
  if (infeasible > 0) {
    fmt::print("  built but infeasible (over HBM on its most loaded rank, so not timed; or a rule found while "
               "building): {}\n",
               infeasible);
  }
  std::size_t width = 28;  // the layout column fits the longest layout shown
  for (std::size_t i = 0; i < r.ranked.size() && i < std::max<std::size_t>(r.exact_rows, 1); ++i) {
    width = std::max(width, settings_text(r.ranked[i].settings).size());
  }
  const bool banded = r.band_samples > 0;
  fmt::print("\n {:>4}  {:<{}} {:>10} {:>10}{} {:>12} {:>12} {:>14} {:>6}\n", "rank", "layout", width, "step (s)", "flow (s)",
             banded ? fmt::format(" {:>15}", "flow P10-P90 (s)") : std::string(), "tokens/s", "headroom", "$ / T tokens", "MFU");
  // The rows the bound keeps exact; --json and --csv have every simulated candidate.
  const int rows_shown = static_cast<int>(std::max<std::size_t>(r.exact_rows, 1));
  int rank = 0;
  for (const auto& c : r.ranked) {
    if (!c.feasible) break;
    if (rank == rows_shown) {
      fmt::print("  ... {} more simulated (--json or --csv for all{})\n", r.simulated - infeasible - rows_shown,
                 r.pruned.count(sweep::kBoundRule) > 0 ? "; past the top " + std::to_string(rows_shown) +
                                                             " the ranking is not exhaustive" : "");
      break;
    }
    const std::string band =
        !banded ? std::string()
        : c.band_step_time_s ? fmt::format(" {:>16}", fmt::format("{:.3f}-{:.3f}", c.band_step_time_s->p10, c.band_step_time_s->p90))
                             : fmt::format(" {:>16}", "-");
    fmt::print(" {:>4}  {:<{}} {:>10.3f} {:>10}{} {:>12} {:>8.1f} GiB {:>14} {:>5.1f}%{}\n", ++rank,
               settings_text(c.settings), width, c.step_time_s,
               c.flow_step_time_s ? fmt::format("{:.3f}", *c.flow_step_time_s) : std::string("-"), band,
               core::format_count(c.tokens_per_s),
               c.headroom_bytes() / core::kGiB,
               c.cost_per_trillion_tokens_usd ? "$" + core::format_count(*c.cost_per_trillion_tokens_usd) : "-",
               100 * c.mfu, c.pareto ? "  [Pareto]" : "");
  }
  if (r.ranked.empty() || !r.ranked.front().feasible) {
    fmt::print("  no candidate fits: relax --fix, add GPUs, or lower the batch\n");
    return;
  }
  if (r.ranked.size() > 1 && r.ranked[1].feasible) {
    const auto loses = sweep::runner_up_loses_on(r);
    fmt::print("\nthe runner-up {}; it leaves {:.1f} GiB of HBM free per GPU against the winner's {:.1f} GiB\n",
               loses.empty() ? "is as fast in every category of the step" : "loses most on " + loses,
               r.ranked[1].headroom_bytes() / core::kGiB, r.ranked[0].headroom_bytes() / core::kGiB);
  }
  std::size_t rerun = 0;
  for (const auto& c : r.ranked) rerun += c.flow_step_time_s ? 1 : 0;
  if (rerun > 0) {
    fmt::print("top {} re-run on the flow network{} in {:.1f} s ({} passes replayed flow by flow, {} more shared "
               "with another candidate): {}\n",
               rerun, banded ? " with their bands" : "", r.flow_wall_s, r.flow_passes_replayed, r.flow_passes_reused,
               r.flow_changes_ranking ? "their order changes" : "same order");
  }
  if (banded) {
    fmt::print("uncertainty band ({} paired samples of the registered numbers' ranges): the flow network's "
               "winner stays first in {} of them, the order of the top {} holds in {}{}\n",
               r.band_samples, r.band_winner_holds, rerun, r.band_order_holds,
               r.band_order_holds == r.band_samples ? "" : ": the ranking changes across the band");
  }
}

// --gpu TYPE: the cluster preset built of that GPU (h200 -> h200-rail), as cluster.topology.
input::Override gpu_preset(const std::string& type) {
  std::vector<std::string> matches;
  std::string all;
  for (const auto& name : topo::preset_names()) {
    all += (all.empty() ? "" : ", ") + name.substr(0, name.find('-'));
    if (name.rfind(type + "-", 0) == 0) matches.push_back(name);
  }
  if (matches.size() != 1) {
    throw core::InputError({"--gpu", "", 0},
                           matches.empty() ? fmt::format("no cluster preset is built of '{}'", type)
                                           : fmt::format("'{}' names {} cluster presets", type, matches.size()),
                           "a GPU of a preset (" + all + "), or the scenario's cluster.topology");
  }
  return {"cluster.topology", matches.front()};
}

// The base scenario with the winner's settings (and cluster size) applied.
void write_best_scenario(const std::string& path, const std::string& text, const std::string& source,
                         std::vector<input::Override> sets, const sweep::PlanCandidate& best) {
  auto root = YAML::Load(text);
  sets.insert(sets.end(), best.settings.begin(), best.settings.end());
  for (const auto& s : sets) input::apply_override(root, s);
  write_planned_scenario(path, root, source, sets.empty() ? "its best layout" : "its best layout (settings applied below)");
}

void print_cluster_plan(const PlanCliOptions& o, const sweep::ClusterPlanResult& r) {
  fmt::print("{}: {} tokens in {:g} days need {} tokens/s, a step of at most {:.3f} s; at least {} GPUs at "
             "their peak FLOP/s\n",
             o.scenario, core::format_count(r.goal.tokens), r.goal.days, core::format_count(r.required_tokens_per_s),
             r.goal_step_time_s, r.floor_gpus);
  for (const auto& t : r.tried) {
    fmt::print("  {:>7} GPUs: {:>6} candidates, {:>4} simulated in {:>6.1f} s: {}\n", t.gpus, t.candidates, t.simulated,
               t.wall_s,
               t.best_step_time_s ? fmt::format("best step {:.3f} s, {}{}", *t.best_step_time_s,
                                                t.meets ? "meets the goal" : "too slow",
                                                t.goodput_tokens_per_s
                                                    ? fmt::format("; goodput {} at {:.1f}% effective training time: {}",
                                                                  core::format_in_unit(*t.goodput_tokens_per_s, "tokens/s"),
                                                                  100 * *t.effective_training_time,
                                                                  t.meets_goodput ? "meets it" : "short of it")
                                                    : std::string())
                                  : std::string("no layout can meet the goal"));
  }
  if (!r.chosen) {
    fmt::print("no cluster of up to {} GPUs meets the goal{}: raise --max-gpus, or relax --fix\n", o.max_gpus,
               r.tried.empty() ? " (even at their peak FLOP/s)" : "");
    return;
  }
  const auto per_node = r.gpus_per_node > 0 ? r.gpus_per_node : 1;
  if (!r.sized_on_goodput) {
    fmt::print("\nsmallest cluster: {} GPUs ({} nodes); its best layout trains the tokens in {:.1f} days (ideal throughput: "
               "no reliability: block, so no failures, checkpoints or restarts counted)\n\n",
               r.chosen->gpus, r.chosen->gpus / per_node, r.goal.tokens / r.chosen->ranked.front().tokens_per_s / 86400.0);
    return;
  }
  const auto& last = r.tried.back();
  fmt::print("\nsmallest cluster on ideal throughput: {} GPUs; on goodput (failures, checkpoints, restarts of the "
             "reliability: block): {} GPUs ({} nodes), which trains the tokens in {:.1f} days at its P50 goodput; "
             "reliability costs {} GPUs\n\n",
             r.ideal_gpus.value_or(0), r.chosen->gpus, r.chosen->gpus / per_node,
             r.goal.tokens / last.goodput_tokens_per_s.value_or(1) / 86400.0, r.chosen->gpus - r.ideal_gpus.value_or(0));
}

// The command as the report names it: the goal and every option that shapes the search.
std::string command_text(const PlanCliOptions& o) {
  std::string out = "k3sim plan " + o.scenario;
  if (o.gpus) out += fmt::format(" --gpus {}", *o.gpus);
  if (o.tokens) out += fmt::format(" --tokens {:g}", *o.tokens);
  if (o.days) out += fmt::format(" --days {:g}", *o.days);
  if (!o.gpu.empty()) out += " --gpu " + o.gpu;
  if (o.objective != "time") out += " --objective " + o.objective;
  for (const auto& f : o.fixes) out += " --fix " + f;
  for (const auto& g : o.grids) out += " --grid " + g;
  for (const auto& s : o.sets) out += " --set " + s;
  if (o.serve) {
    out += fmt::format(" --serve {:g}", *o.serve);
    if (o.ttft) out += fmt::format(" --ttft {:g}", *o.ttft);
    if (o.tpot) out += fmt::format(" --tpot {:g}", *o.tpot);
    out += fmt::format(" --attainment {:g}", o.attainment);
  } else {
    out += fmt::format(" --top {} --band {}", o.top, o.band);
  }
  if (o.exhaustive) out += " --exhaustive";
  return out;
}

// `seed` is the scenario's, which the top K's bands draw from.
void write_report(const PlanCliOptions& o, const std::string& text, std::uint64_t seed, const nlohmann::json& j) {
  if (o.report.empty()) return;
  reports::RunInfo info;
  if (o.band > 0 && o.top > 0) info.seed = seed;
  info.command = command_text(o);
  info.version = std::string(core::version_string());
  info.scenario_name = o.scenario;
  info.scenario_text = text;
  reports::write_plan_report(o.report, j, info);
}

// --serve: the serving goal, which shares --gpu, --max-gpus, --exhaustive, --set, --jobs, --json, --write-best and
// --profile; the layout-search flags do not apply to it.
int plan_serve(const PlanCliOptions& o, const CLI::App& command) {
#ifdef K3SIM_HAVE_MPI
  if (sweep::launched_by_mpirun()) {
    throw core::InputError({"--serve", "", 0}, "the serving goal runs in one process (on all its cores), not under mpirun",
                           "k3sim plan SERVING.yaml --serve RATE without mpirun");
  }
#endif
  if (o.gpus || o.tokens || o.days) {
    throw core::InputError({"--serve", "", 0}, "plan takes one goal", "--serve alone, or --gpus N, or --tokens T with --days D");
  }
  for (const char* flag : {"--fix", "--grid", "--csv", "--objective", "--top", "--samples"}) {
    if (command.count(flag) > 0) {
      throw core::InputError({flag, "", 0}, "is a flag of the layout search, not of --serve",
                             "with --serve: --ttft, --tpot, --attainment, --gpu, --max-gpus, --exhaustive, --set, --jobs, "
                             "--json, --write-best, --report, --profile");
    }
  }
  ServePlanCliOptions s;
  s.scenario = o.scenario;
  if (!o.gpu.empty()) {
    const auto preset = gpu_preset(o.gpu);
    s.sets.push_back(preset.key + "=" + preset.value);
  }
  s.sets.insert(s.sets.end(), o.sets.begin(), o.sets.end());
  s.rate_per_s = *o.serve;
  s.ttft_s = o.ttft;
  s.tpot_s = o.tpot;
  s.attainment = o.attainment;
  s.max_gpus = command.count("--max-gpus") > 0 ? o.max_gpus : s.max_gpus;
  s.exhaustive = o.exhaustive;
  s.threads = core::resolve_threads(o.jobs);
  s.json = o.json;
  s.write_best = o.write_best;
  s.report = o.report;
  s.command = command_text(o);
  s.profile = o.profile;
  return plan_serving_goal(s);
}

int plan(const PlanCliOptions& o, const CLI::App& command) {
  if (o.serve) return plan_serve(o, command);
  for (const char* flag : {"--ttft", "--tpot", "--attainment"}) {
    if (command.count(flag) > 0) throw core::InputError({flag, "", 0}, "is a flag of --serve", "--serve RATE with it");
  }
  const std::string text = core::read_text_file(o.scenario, "a scenario YAML file (see scenarios/README.md)");
  std::vector<input::Override> sets;
  if (!o.gpu.empty()) sets.push_back(gpu_preset(o.gpu));
  for (const auto& s : o.sets) sets.push_back(input::parse_override(s));
  const bool by_goal = o.tokens.has_value() || o.days.has_value();
  if (by_goal == o.gpus.has_value()) {
    throw core::InputError({"--gpus", "", 0}, "plan needs one goal", "--gpus N, or --tokens T with --days D");
  }
  if (o.max_gpus < 1) {
    throw core::InputError({"--max-gpus", "", 0}, fmt::format("{} GPUs", o.max_gpus), "a positive number of GPUs");
  }
  sweep::PlanOptions options;
  for (const auto& f : o.fixes) options.fixes.push_back(parse_fix(f));
  for (const auto& g : o.grids) options.axes.push_back(sweep::parse_grid_axis(g));
  options.objective = o.objective == "cost" ? sweep::PlanObjective::cost : sweep::PlanObjective::time;
  options.top_k = o.top;
  options.band_samples = o.band;
  options.exhaustive = o.exhaustive;
  options.threads = core::resolve_threads(o.jobs);
  options.progress = stderr;
  options.progress_mode = core::progress_mode(o.quiet, ::isatty(STDERR_FILENO) != 0, true);
  // Under mpirun every rank runs the same search, its jobs spread over the ranks; rank 0 writes the outputs.
  bool follower = false;  // an MPI rank other than 0
#ifdef K3SIM_HAVE_MPI
  std::unique_ptr<sweep::MpiSession> mpi;
  if (sweep::launched_by_mpirun()) {
    mpi = std::make_unique<sweep::MpiSession>();
    options.spread = sweep::spread_over_ranks(*mpi, options.threads);
    follower = mpi->rank() != 0;
    if (follower) options.progress = nullptr;
  }
#endif

  std::optional<sweep::PlanResult> result;
  std::vector<input::Override> result_sets = sets;
  if (by_goal) {
    const auto resolve = [&](std::int64_t gpus) {
      auto s = sets;
      return resolve_on(text, o.scenario, s, gpus, o.profile);
    };
    auto cluster = sweep::plan_cluster_size(text, o.scenario, sets, {o.tokens.value_or(0), o.days.value_or(0)}, options,
                                              resolve, o.max_gpus);
    if (follower) return 0;
    const auto j = sweep::cluster_plan_to_json(cluster, options.objective);
    write_report(o, text, input::parse_scenario(text, o.scenario, sets).seed, j);
    if (o.json) {
      fmt::print("{}\n", j.dump(1));
    } else {
      print_cluster_plan(o, cluster);
      if (cluster.chosen) print_plan(o, *cluster.chosen);
    }
    if (cluster.chosen) {
      result = std::move(cluster.chosen);
      result_sets.push_back({"cluster.nodes", std::to_string(result->gpus / cluster.gpus_per_node)});
    }
  } else {
    if (*o.gpus < 1) throw core::InputError({"--gpus", "", 0}, fmt::format("{} GPUs", *o.gpus), "a positive number of GPUs");
    const auto inputs = resolve_on(text, o.scenario, result_sets, *o.gpus, o.profile);
    result = sweep::plan_layouts({text, o.scenario, result_sets, inputs}, options);
    if (follower) return 0;
    const auto j = sweep::plan_to_json(*result, options.objective);
    write_report(o, text, inputs.scenario.seed, j);
    if (o.json) {
      fmt::print("{}\n", j.dump(1));
    } else {
      print_plan(o, *result);
    }
  }
  if (result && !o.csv.empty()) core::write_text_file(o.csv, sweep::plan_to_csv(*result), "--csv");
  if (!o.write_best.empty()) {
    if (!result || result->ranked.empty() || !result->ranked.front().feasible) {
      throw core::InputError({"--write-best", "", 0}, "no candidate fits, so there is no best layout to write",
                             "relax --fix, add GPUs, or lower the batch");
    }
    result_sets.insert(result_sets.end(), options.fixes.begin(), options.fixes.end());
    write_best_scenario(o.write_best, text, o.scenario, result_sets, result->ranked.front());
  }
  return 0;
}

}  // namespace

void attach_plan(CLI::App& command, int& exit_status) {
  auto o = std::make_shared<PlanCliOptions>();
  auto* sub = &command;
  sub->add_option("scenario", o->scenario, "Base scenario YAML: model, cluster, batch, precision (scenarios/README.md)")
      ->required();
  sub->add_option("--gpus", o->gpus, "Goal: the best layout on this many GPUs (whole nodes of the scenario's cluster)");
  sub->add_option("--tokens", o->tokens, "Goal: the smallest cluster that trains this many tokens (with --days)");
  sub->add_option("--days", o->days, "... in this many days of training (with --tokens)");
  sub->add_option("--serve", o->serve, "Goal: the smallest deployment of a serving scenario that serves this many requests/s "
                                       "(Poisson) within the SLO");
  sub->add_option("--ttft", o->ttft, "... within this time to first token in seconds (default: the scenario's slo.ttft_s)");
  sub->add_option("--tpot", o->tpot, "... and this time per output token in seconds (default: the scenario's slo.tpot_s)");
  sub->add_option("--attainment", o->attainment, "... for this share of the requests (default 0.9)");
  sub->add_option("--max-gpus", o->max_gpus, "Largest cluster --tokens/--days or --serve tries (default 131072)");
  sub->add_option("--gpu", o->gpu, "GPU type: the cluster preset built of it replaces the scenario's (h200, b200, ...)");
  sub->add_option("--objective", o->objective, "Rank by step time or by cost per trillion tokens")
      ->check(CLI::IsMember({"time", "cost"}));
  sub->add_option("--fix", o->fixes, "Hold a key at one value, out of the search: key=value (repeatable)");
  sub->add_option("--grid", o->grids, "Search a key over values too: key=v1,v2 or key=lo:hi:x2 (repeatable)");
  sub->add_option("--top", o->top, "Re-run the best K on the flow network (default 3)")->check(CLI::NonNegativeNumber);
  sub->add_option("--samples,--band", o->band, "Paired uncertainty-band samples for each of the top K (default 16; 0: none)")
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--exhaustive", o->exhaustive,
                "Simulate every candidate the rules leave, not only those whose lower bound could enter the top 10");
  sub->add_option("--set", o->sets, "Override a key of the base scenario (repeatable)");
  sub->add_option("-j,--jobs", o->jobs, "Worker threads (default: all cores)")->check(CLI::PositiveNumber);
  sub->add_flag("--json", o->json, "Print the search and its ranking as JSON");
  sub->add_flag("-q,--quiet", o->quiet, "No progress on stderr (shown on a terminal, and as lines elsewhere)");
  sub->add_option("--csv", o->csv, "Write the ranking as CSV, one row per simulated candidate");
  sub->add_option("--write-best", o->write_best, "Write the best layout as a scenario YAML (for run and compare)");
  sub->add_option("--report", o->report,
                  "Write a self-contained HTML report: verdict, where the candidates went by rule, step time against "
                  "memory with its Pareto front, the ranking");
  sub->add_option("--profile", o->profile, "Calibration profile JSON from `k3sim calibrate`");
  sub->callback([o, sub, &exit_status] { exit_status = plan(*o, *sub); });
}

}  // namespace k3::cli
