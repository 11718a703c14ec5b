// `k3sim run <scenario.yaml> [--set key=value]... [--json] [--trace trace.json] [--trace-ranks N]
//  [--profile profile.json] [--report out.html] [--export-graph graph.json] [--replay-graph graph.json]`: simulate one training step of the scenario and print step time, breakdown,
// MFU, memory per GPU and link use.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <optional>

#include <unistd.h>

#include "sim/input/scenario_inputs.hpp"
#include "core/progress.hpp"
#include "core/version.hpp"
#include "reports/sections/step.hpp"
#include "core/error.hpp"
#include "results/band_output.hpp"
#include "results/goodput_output.hpp"
#include "sim/input/reliability_block.hpp"
#include "results/step_output.hpp"
#include "sim/train/step_band.hpp"
#include "validate/validation.hpp"
#include "sim/train/step_setup.hpp"
#include "sim/train/step_simulator.hpp"
#include "sim/exec/step_graph.hpp"
#include "core/text_file.hpp"

namespace k3::cli {

namespace {

struct RunOptions {
  std::string scenario;
  std::vector<std::string> sets;
  bool json = false;
  bool quiet = false;  // no progress on stderr
  std::string trace;
  int trace_ranks = 16;
  std::string profile;
  std::string report;
  int jobs = 0;
  int samples = 64;
  bool sensitivity_by_entry = false;
  bool band_by_simulation = false;
  bool profile_any_device = false;
  std::string export_graph;
  std::string replay_graph;
  bool goodput = false;  // the whole run under interruptions (the scenario's reliability: block)
  double days = 0;
  int replications = 64;
  std::string command;  // the command line as run, for the report
};

void write_json_file(const std::string& path, const nlohmann::json& j, const char* flag) {
  std::ofstream out(path);
  if (!out) throw core::InputError({flag, "", 0}, "cannot write '" + path + "'", "a writable file path");
  out << j.dump() << "\n";
}

// The graph of --export-graph run again on the scenario's network.
int replay(const RunOptions& o, const input::ScenarioInputs& inputs) {
  const auto text = core::read_text_file(o.replay_graph, "a step graph (JSON) from k3sim run --export-graph");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw core::InputError({o.replay_graph, "", 0}, std::string("not JSON: ") + e.what(), "a file from --export-graph");
  }
  const auto graph = exec::graph_from_json(json, o.replay_graph);
  const auto makespan = train::replay_step_graph(graph, inputs.scenario, *inputs.topology);
  if (o.json) {
    fmt::print("{}\n", nlohmann::json{{"graph", o.replay_graph}, {"nodes", graph.nodes.size()},
                                      {"makespan_ps", makespan.ps()}, {"makespan_s", makespan.seconds()}}.dump(2));
  } else {
    fmt::print("step graph {}: {} nodes, makespan {:.6f} s ({} ps) on {}'s network\n", o.replay_graph, graph.nodes.size(),
               makespan.seconds(), makespan.ps(), inputs.scenario.name);
  }
  return 0;
}

void check_goodput_options(const RunOptions& o, const input::ScenarioInputs& inputs) {
  if (!o.goodput) {
    if (o.days > 0) throw core::InputError({"--days", "", 0}, "--days is read only with --goodput", "--goodput --days D");
    return;
  }
  input::check_goodput_request(inputs.scenario, o.days, "the scenario");
}

int run(const RunOptions& o) {
  const auto inputs = input::load_scenario_inputs(o.scenario, o.sets, o.profile, o.profile_any_device);
  if (!o.replay_graph.empty()) return replay(o, inputs);
  check_goodput_options(o, inputs);
  train::StepOptions opt;
  if (!o.export_graph.empty()) {
    opt.on_graph = [&o](const train::StepGraphExport& e) {
      auto json = exec::graph_to_json(e.graph);
      json["programs"] = e.programs;
      write_json_file(o.export_graph, json, "--export-graph");
    };
  }
  opt.threads = o.jobs;
  opt.trace = !o.trace.empty() || !o.report.empty();  // the report draws the timeline
  opt.max_trace_ranks = o.trace_ranks;
  opt.op_trace = !o.trace.empty();  // the trace also shows one pass of each kind op by op, GPU by GPU
  opt.version = std::string(core::version_string());
  core::Progress progress((o.samples > 0 ? 2 : 1) + (o.goodput ? 1 : 0), stderr, core::progress_mode(o.quiet, ::isatty(STDERR_FILENO) != 0, false),
                          "run", "parts");
  progress.doing("the step");
  const auto result = train::simulate_step(inputs.scenario, inputs.model, *inputs.topology,
                                          inputs.profile ? &*inputs.profile : nullptr, opt);
  if (!o.trace.empty()) write_json_file(o.trace, results::step_trace(result), "--trace");
  train::BandOptions band_options;
  band_options.samples = o.samples;
  band_options.seed = inputs.scenario.seed;
  band_options.threads = o.jobs;
  band_options.entry_sensitivity = o.sensitivity_by_entry;
  band_options.simulate_each_sample = o.band_by_simulation;
  progress.done_one();
  if (o.samples > 0) progress.doing("its band: each factor at its ends");
  const auto band = train::simulate_step_band(inputs.scenario, inputs.model, *inputs.topology,
                                              inputs.profile_or_null(), result, band_options);
  std::optional<reliability::GoodputResult> goodput;
  if (o.goodput) {
    if (o.samples > 0) progress.done_one();
    progress.doing("the whole run's goodput");
    goodput = input::simulate_run_goodput(inputs, result, o.days, o.replications, o.jobs);
  }
  progress.finish();
  nlohmann::json json = results::step_to_json(result);
  results::add_band(json, band);
  if (goodput) json["goodput"] = results::goodput_json(*goodput);
  std::optional<results::QuantityDiscrepancy> training;
  if (band.samples > 0) {
    training = validate::shipped_discrepancy("training step");
    results::add_model_discrepancy(json, band, *training, validate::kDiscrepancyTableName);
  }
  if (!o.report.empty()) reports::write_step_report(o.report, result, json, o.command, o.trace);
  if (o.json) {
    fmt::print("{}\n", json.dump(2));
  } else {
    fmt::print("{}{}{}{}", results::step_to_text(result), results::band_to_text(band),
               training ? results::model_discrepancy_to_text(band, *training) : std::string(),
               goodput ? results::goodput_to_text(*goodput) : std::string());
  }
  return 0;
}

}  // namespace

void attach_run(CLI::App& command, int& exit_status) {
  auto o = std::make_shared<RunOptions>();
  auto* sub = &command;
  sub->add_option("scenario", o->scenario, "Scenario YAML (see scenarios/README.md)")->required();
  sub->add_option("--set", o->sets, "Override a scenario key, e.g. --set parallel.ep=32 (repeatable)");
  sub->add_flag("--json", o->json, "Print the result as JSON");
  sub->add_flag("-q,--quiet", o->quiet, "No progress on stderr (shown on a terminal)");
  sub->add_option("--trace", o->trace, "Write a Chrome/Perfetto trace to this file: the pipeline "
                  "timeline, and one pass of each kind op by op on every GPU of the simulated group (compute and "
                  "collective streams, flows across GPUs, link utilisation)");
  sub->add_option("--trace-ranks", o->trace_ranks, "Pipeline ranks kept in the trace")->check(CLI::PositiveNumber);
  sub->add_option("--profile", o->profile, "Calibration profile JSON from `k3sim calibrate` (replaces the defaults)");
  sub->add_flag("--profile-any-device", o->profile_any_device,
                "Use a profile measured on another device type (or the CPU backend) anyway");
  sub->add_option("--report", o->report, "Write a self-contained HTML report (charts, timeline, assumptions) to this file");
  sub->add_option("-j,--jobs", o->jobs, "Threads for the independent pass simulations (default 0: one per hardware "
                  "thread; the result does not depend on it)")->check(CLI::NonNegativeNumber);
  sub->add_option("--export-graph", o->export_graph, "Write the step graph (JSON, schema k3sim-step-graph/1: every "
                  "pipeline rank's passes, sends and data-parallel work as Chakra-style nodes with dependencies) to this file");
  sub->add_option("--replay-graph", o->replay_graph, "Run a graph from --export-graph on the scenario's network and print "
                  "its makespan, instead of simulating the step");
  sub->add_option("--samples", o->samples, "Samples of the uncertainty band over the provenance ranges (default 64; "
                  "0: no band and no sensitivity ranking)")->check(CLI::NonNegativeNumber);
  sub->add_flag("--sensitivity-by-entry", o->sensitivity_by_entry, "Also rank each ranged number alone, moved to its "
                "low and its high end (two step simulations per number; the default ranking moves each software "
                "stack as one factor)");
  sub->add_flag("--band-by-simulation", o->band_by_simulation, "Simulate every band sample instead of drawing it "
                "on the factors' response (one step simulation per sample: the check of the default, about 30x a "
                "plain run)");
  sub->add_flag("--goodput", o->goodput, "Also simulate the whole run under interruptions (the scenario's "
                "reliability: block): failures, checkpoints, restarts, stragglers; goodput with a P10..P90 band, time lost "
                "per cause, the best checkpoint interval");
  sub->add_option("--days", o->days, "Length of the run --goodput simulates, in days (at most 100)");
  sub->add_option("--replications", o->replications, "Replications of the run's timeline for --goodput's band "
                  "(default 64)")->check(CLI::PositiveNumber);
  sub->callback([o, &exit_status] {
    o->command = "k3sim run " + o->scenario;
    for (const auto& s : o->sets) o->command += " --set " + s;
    if (!o->profile.empty()) o->command += " --profile " + o->profile;
    if (o->samples != 64) o->command += " --samples " + std::to_string(o->samples);
    if (o->sensitivity_by_entry) o->command += " --sensitivity-by-entry";
    if (o->band_by_simulation) o->command += " --band-by-simulation";
    if (o->goodput) o->command += fmt::format(" --goodput --days {:g}", o->days);
    exit_status = run(*o);
  });
}

}  // namespace k3::cli
