// `k3sim sweep <scenario.yaml> --grid key=v1,v2 --grid key=lo:hi:x2 ... [--set k=v]... [--jobs N]
//  [--out results.csv|.json] [--json] [--report out.html] [--pareto gpus|cost]`: every point of the
// Cartesian grid is the scenario with those overrides, simulated exactly as `k3sim run` would; threads
// share the points, or MPI ranks when started by mpirun. Points that break a layout rule (the checks
// `k3sim plan` prunes with) are refused before any point runs, each with the rule.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <set>

#include "core/threads.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "reports/sections/sweep.hpp"
#include "core/version.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"
#include "results/step_output.hpp"
#include "sim/train/step_simulator.hpp"
#include "sweep/grid.hpp"
#include "sweep/plan_search.hpp"
#include "sweep/sweep_output.hpp"
#include "sweep/sweep_runner.hpp"
#ifdef K3SIM_HAVE_MPI
#include "sweep/sweep_mpi.hpp"
#endif

namespace k3::cli {

namespace {

struct SweepOptions {
  std::string scenario;
  std::vector<std::string> grids;
  std::vector<std::string> sets;
  int jobs = 0;
  std::string out;
  std::string report;
  bool json = false;
  bool quiet = false;  // no progress on stderr
  std::string pareto = "gpus";
  std::string profile;
};

std::string point_text(const sweep::GridPoint& point) {
  std::string out;
  for (const auto& s : point) out += s.key + "=" + s.value + "\n";
  return out;
}

// The points that break a layout rule (sweep/layout_rules.hpp, as `k3sim plan` prunes), by point_text, each with
// its refusal; checked on the base's model and cluster resolved once, so only when no axis changes them.
std::map<std::string, std::string> refusals_by_layout_rule(const std::string& base, const std::string& source,
                                                           const std::vector<input::Override>& sets,
                                                           const std::vector<sweep::GridAxis>& axes,
                                                           const std::vector<sweep::GridPoint>& points,
                                                           const SweepOptions& o) {
  std::map<std::string, std::string> out;
  for (const auto& a : axes) {
    if (sweep::changes_resolved_inputs(a.key)) return out;
  }
  const auto inputs = input::resolve_scenario(input::parse_scenario(base, source, sets), o.profile);
  const auto refusals =
      sweep::check_points_rules({base, source, sets, inputs}, {}, points, core::resolve_threads(o.jobs));
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (refusals[i]) {
      out[point_text(points[i])] =
          "refused before simulation by the layout rule on " + refusals[i]->rule + ": " + refusals[i]->message;
    }
  }
  return out;
}

int sweep(const SweepOptions& o) {
  // Everything about the input is checked here, before any point runs (and on every MPI rank alike).
  const std::string base = core::read_text_file(o.scenario, "a scenario YAML file (see scenarios/README.md)");
  std::vector<input::Override> sets;
  for (const auto& s : o.sets) sets.push_back(input::parse_override(s));
  if (o.grids.empty()) throw core::InputError({"--grid", "", 0}, "no grid axis given", "one or more --grid key=values");
  std::vector<sweep::GridAxis> axes;
  for (const auto& g : o.grids) axes.push_back(sweep::parse_grid_axis(g));
  const auto points = sweep::expand_grid(axes);
  sweep::validate_grid(base, o.scenario, sets, axes);
  if (!o.out.empty() && !o.out.ends_with(".csv") && !o.out.ends_with(".json")) {
    throw core::InputError({"--out", "", 0}, "unknown output format '" + o.out + "'", "a path ending in .csv or .json");
  }

  const std::string version(core::version_string());
  const std::string profile_flag = o.profile;
  const std::string source = o.scenario;
  const auto refusals = refusals_by_layout_rule(base, o.scenario, sets, axes, points, o);
  const sweep::Simulate simulate = [&base, &sets, &source, &profile_flag, &version,
                                    &refusals](const sweep::GridPoint& point) {
    if (const auto r = refusals.find(point_text(point)); r != refusals.end()) throw core::InputError({}, r->second);
    auto overrides = sets;
    overrides.insert(overrides.end(), point.begin(), point.end());
    const auto in = input::resolve_scenario(input::parse_scenario(base, source, overrides), profile_flag);
    train::StepOptions opt;
    opt.trace = false;  // as `k3sim run` without --trace
    opt.version = version;
    opt.threads = 1;    // the points themselves run on --jobs threads
    return results::step_to_json(
        train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt));
  };

  const auto mode = core::progress_mode(o.quiet, ::isatty(STDERR_FILENO) != 0, true);
  std::vector<sweep::PointResult> results;
#ifdef K3SIM_HAVE_MPI
  if (sweep::launched_by_mpirun()) {
    sweep::MpiSession mpi;
    std::unique_ptr<core::Progress> progress;
    if (mpi.rank() == 0) progress = std::make_unique<core::Progress>(points.size(), stderr, mode, "sweep");
    results = sweep::run_points_mpi(mpi, points, simulate, progress.get());
    if (mpi.rank() != 0) return 0;  // rank 0 writes the outputs
  }
#endif
  if (results.empty()) {
    const int jobs = core::resolve_threads(o.jobs);
    core::Progress progress(points.size(), stderr, mode, "sweep");
    results = sweep::run_points(points, simulate, jobs, &progress);
  }

  const sweep::SweepSummary summary{o.scenario, axes, o.pareto == "cost" ? sweep::ParetoX::cost : sweep::ParetoX::gpus};
  sweep::mark_pareto(results, summary.pareto_x);
  if (!o.out.empty()) sweep::write_sweep(o.out, summary, results);
  const auto j = sweep::sweep_to_json(summary, results);
  if (!o.report.empty()) reports::write_sweep_report(o.report, j, "k3sim sweep " + o.scenario);
  if (o.json) {
    fmt::print("{}\n", j.dump(1));
  } else {
    std::set<std::string> networks;
    for (const auto& r : results) {
      if (r.ran) networks.insert(r.step.at("network_model").get<std::string>());
    }
    fmt::print("{}: {} points, {} feasible, {} on the Pareto front over ({}, step time), {} network model\n",
               o.scenario, results.size(), j.at("points_feasible").get<std::size_t>(),
               j.at("points_on_front").get<std::size_t>(), o.pareto == "cost" ? "USD per trillion tokens" : "GPUs",
               networks.empty() ? std::string("no") : fmt::format("{}", fmt::join(networks, " and ")));
    for (const auto& r : results) {
      std::string where;
      for (const auto& s : r.settings) where += fmt::format(" {}={}", s.key, s.value);
      if (r.feasible) {
        fmt::print("  {:>5}{} | {:>6} GPUs {:>9.3f} s/step {:>5.1f} % MFU{}\n", r.index, where,
                   r.step.at("gpus").get<long long>(), r.step.at("step_time_s").get<double>(),
                   100 * r.step.at("mfu").get<double>(), r.pareto ? "  [Pareto]" : "");
      } else {
        fmt::print("  {:>5}{} | infeasible: {}\n", r.index, where, r.reason);
      }
    }
  }
  return 0;
}

}  // namespace

void attach_sweep(CLI::App& command, int& exit_status) {
  auto o = std::make_shared<SweepOptions>();
  auto* sub = &command;
  sub->add_option("scenario", o->scenario, "Base scenario YAML (see scenarios/README.md)")->required();
  sub->add_option("--grid", o->grids, "Axis: key=v1,v2,... or key=lo:hi:xF or key=lo:hi:+S (repeatable)");
  sub->add_option("--set", o->sets, "Override a key of the base scenario for every point (repeatable)");
  sub->add_option("-j,--jobs", o->jobs, "Worker threads (default: all cores)")->check(CLI::PositiveNumber);
  sub->add_option("--out", o->out, "Write all points to results.csv or results.json");
  sub->add_option("--report", o->report, "Write an HTML report with the Pareto front");
  sub->add_flag("--json", o->json, "Print the results as JSON");
  sub->add_flag("-q,--quiet", o->quiet, "No progress on stderr (shown on a terminal, and as lines elsewhere)");
  sub->add_option("--pareto", o->pareto, "Front over GPUs or cost per trillion tokens, against step time")
      ->check(CLI::IsMember({"gpus", "cost"}));
  sub->add_option("--profile", o->profile, "Calibration profile JSON from `k3sim calibrate`");
  sub->callback([o, &exit_status] { exit_status = sweep(*o); });
}

}  // namespace k3::cli
