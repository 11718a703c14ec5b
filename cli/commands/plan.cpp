// `k3sim plan <scenario.yaml> --gpus N [--objective time|cost] [--fix key=value]... [--grid key=values]...
//  [--top K] [--set key=value]... [--jobs N] [--json]`: the best parallel layouts of the scenario's model,
// batch and precision on N GPUs of its cluster (sweep/plan_search.hpp): candidates pruned by the layout
// rules and a memory bound before any simulation, the rest simulated on the analytical network, the top K
// again on the flow network.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <memory>

#include "core/error.hpp"
#include "core/text_file.hpp"
#include "core/threads.hpp"
#include "core/units.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sweep/plan_search.hpp"

namespace k3::cli {

namespace {

struct PlanCliOptions {
  std::string scenario;
  std::int64_t gpus = 0;
  std::string objective = "time";
  std::vector<std::string> fixes;
  std::vector<std::string> grids;
  std::vector<std::string> sets;
  int top = 3;
  int jobs = 0;
  bool json = false;
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

// The scenario's own cluster resized to `gpus` GPUs (as cluster.nodes), resolved once for the search.
input::ScenarioInputs resolve_on(const std::string& text, const std::string& source,
                                 std::vector<input::Override>& sets, std::int64_t gpus, const std::string& profile) {
  if (gpus < 1) throw core::InputError({"--gpus", "", 0}, fmt::format("{} GPUs", gpus), "a positive number of GPUs");
  auto inputs = input::resolve_scenario(input::parse_scenario(text, source, sets), profile);
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
  fmt::print("{} on {} GPUs, objective {}: {} candidates, {} pruned before simulation, {} simulated (analytical "
             "network) in {:.1f} s ({:.1f} candidates/s)\n",
             o.scenario, r.gpus, o.objective, r.candidates, pruned, r.simulated, r.search_wall_s, rate);
  for (const auto& [rule, c] : r.pruned) {
    fmt::print("  pruned by {:<26} {:>5}  e.g. {}\n", rule, c.candidates, c.example);
  }
  std::size_t infeasible = 0;
  for (const auto& c : r.ranked) infeasible += c.feasible ? 0 : 1;
  if (infeasible > 0) {
    fmt::print("  simulated but infeasible (memory or a rule found while building): {}\n", infeasible);
  }
  fmt::print("\n {:>4}  {:<28} {:>10} {:>10} {:>12} {:>12} {:>14} {:>6}\n", "rank", "layout", "step (s)", "flow (s)",
             "tokens/s", "headroom", "$ / 1e12 tok", "MFU");
  constexpr int kRowsShown = 20;  // --json has every candidate
  int rank = 0;
  for (const auto& c : r.ranked) {
    if (!c.feasible) break;
    if (rank == kRowsShown) {
      fmt::print("  ... {} more feasible (--json for all)\n", r.simulated - infeasible - kRowsShown);
      break;
    }
    fmt::print(" {:>4}  {:<28} {:>10.3f} {:>10} {:>12.4g} {:>8.1f} GiB {:>14} {:>5.1f}%{}\n", ++rank,
               settings_text(c.settings), c.step_time_s,
               c.flow_step_time_s ? fmt::format("{:.3f}", *c.flow_step_time_s) : std::string("-"), c.tokens_per_s,
               c.headroom_bytes() / core::kGiB,
               c.cost_per_trillion_tokens_usd ? fmt::format("{:.0f}", *c.cost_per_trillion_tokens_usd) : "-",
               100 * c.mfu, c.pareto ? "  [Pareto]" : "");
  }
  if (r.ranked.empty() || !r.ranked.front().feasible) {
    fmt::print("  no candidate fits: relax --fix, add GPUs, or lower the batch\n");
    return;
  }
  if (const auto loses = sweep::runner_up_loses_on(r); !loses.empty()) {
    fmt::print("\nthe runner-up loses on {}\n", loses);
  }
  std::size_t rerun = 0;
  for (const auto& c : r.ranked) rerun += c.flow_step_time_s ? 1 : 0;
  if (rerun > 0) {
    fmt::print("top {} re-run on the flow network in {:.1f} s: {}\n", rerun, r.flow_wall_s,
               r.flow_changes_ranking ? "their order changes" : "same order");
  }
}

int plan(const PlanCliOptions& o) {
  const std::string text = core::read_text_file(o.scenario, "a scenario YAML file (see scenarios/README.md)");
  std::vector<input::Override> sets;
  for (const auto& s : o.sets) sets.push_back(input::parse_override(s));
  sweep::PlanOptions options;
  for (const auto& f : o.fixes) options.fixes.push_back(parse_fix(f));
  for (const auto& g : o.grids) options.axes.push_back(sweep::parse_grid_axis(g));
  options.objective = o.objective == "cost" ? sweep::PlanObjective::cost : sweep::PlanObjective::time;
  options.top_k = o.top;
  options.threads = core::resolve_threads(o.jobs);
  options.progress = stderr;
  options.progress_terminal = ::isatty(STDERR_FILENO) != 0;
  const auto inputs = resolve_on(text, o.scenario, sets, o.gpus, o.profile);
  const auto result = sweep::plan_layouts({text, o.scenario, sets, inputs}, options);
  if (o.json) {
    fmt::print("{}\n", sweep::plan_to_json(result, options.objective).dump(1));
  } else {
    print_plan(o, result);
  }
  return 0;
}

}  // namespace

void attach_plan(CLI::App& command, int& exit_status) {
  auto o = std::make_shared<PlanCliOptions>();
  auto* sub = &command;
  sub->add_option("scenario", o->scenario, "Base scenario YAML: model, cluster, batch, precision (scenarios/README.md)")
      ->required();
  sub->add_option("--gpus", o->gpus, "GPUs to lay the model out on (whole nodes of the scenario's cluster)")
      ->required();
  sub->add_option("--objective", o->objective, "Rank by step time or by cost per 1e12 tokens")
      ->check(CLI::IsMember({"time", "cost"}));
  sub->add_option("--fix", o->fixes, "Hold a key at one value, out of the search: key=value (repeatable)");
  sub->add_option("--grid", o->grids, "Search a key over values too: key=v1,v2 or key=lo:hi:x2 (repeatable)");
  sub->add_option("--top", o->top, "Re-run the best K on the flow network (default 3)")->check(CLI::NonNegativeNumber);
  sub->add_option("--set", o->sets, "Override a key of the base scenario (repeatable)");
  sub->add_option("--jobs", o->jobs, "Worker threads (default: all cores)")->check(CLI::PositiveNumber);
  sub->add_flag("--json", o->json, "Print the search and its ranking as JSON");
  sub->add_option("--profile", o->profile, "Calibration profile JSON from `k3sim calibrate`");
  sub->callback([o, &exit_status] { exit_status = plan(*o); });
}

}  // namespace k3::cli
