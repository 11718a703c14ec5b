// `k3sim serve <scenario.yaml> [--json] [--rates a,b,c] [--set key=value]`: a serving deployment replayed
// over a request stream; with --rates, the latency-throughput curve over Poisson arrival rates.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/quantity.hpp"
#include "core/version.hpp"
#include "reports/sections/serve.hpp"
#include "results/serve_output.hpp"
#include "sim/input/serve_scenario.hpp"
#include "sim/serve/ratio_search.hpp"
#include "sim/serve/serving_simulator.hpp"

namespace k3::cli {

namespace {

struct ServeOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string rates;
  std::string profile;
  std::string report;
  bool json = false;
  bool search_ratio = false;
  int threads = 0;
};

void search_ratio(const ServeOptions& o, const input::ServeInputs& in) {
  const auto threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const auto s = serve::search_prefill_decode_ratio(in.inputs.model, *in.inputs.topology, in.inputs.profile_or_null(),
                                                    in.spec, threads);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : s.points) {
    nlohmann::json row{{"prefill_nodes", p.prefill_nodes}, {"decode_nodes", p.decode_nodes}, {"fits", p.fits}};
    if (p.fits) row["result"] = results::serve_to_json(p.result);
    else row["why"] = p.why;
    rows.push_back(row);
  }
  if (o.json) {
    fmt::print("{}\n", nlohmann::json{{"name", in.spec.name}, {"best", s.best}, {"splits", rows}}.dump(2));
    return;
  }
  fmt::print("# {}: prefill:decode splits of {} nodes on the same stream (most goodput wins, then SLO headroom)\n",
             in.spec.name, in.spec.deployment.prefill.nodes + in.spec.deployment.decode.nodes);
  fmt::print("{:>8} {:>7} {:>14} {:>11} {:>11} {:>14}  {}\n", "prefill", "decode", "out(tok/s/node)", "TTFT99(ms)",
             "TPOT99(ms)", "goodput(req/s)", "");
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    if (!p.fits) {
      fmt::print("{:>8} {:>7}  does not fit: {}\n", p.prefill_nodes, p.decode_nodes, p.why);
      continue;
    }
    const auto& r = p.result;
    fmt::print("{:>8} {:>7} {:>14.0f} {:>11.1f} {:>11.2f} {:>14.3f}  {}\n", p.prefill_nodes, p.decode_nodes,
               r.output_tokens_per_s_per_node, r.ttft.p99 * 1e3, r.tpot.p99 * 1e3, r.goodput_requests_per_s,
               static_cast<int>(i) == s.best ? "<- best" : "");
  }
  if (s.best < 0) fmt::print("no split fits\n");
}

void report(const ServeOptions& o, const input::ServeInputs& in, const nlohmann::json& j) {
  if (o.report.empty()) return;
  std::string command = "k3sim serve " + o.scenario;
  for (const auto& s : o.sets) command += " --set " + s;
  if (!o.rates.empty()) command += " --rates " + o.rates;
  reports::write_serve_report(o.report, j, {command, std::string(core::version_string()), in.spec.seed, "Scenario YAML as run",
                                            in.inputs.scenario.yaml_text, {}});
}

void run(const ServeOptions& o) {
  const input::ServeInputs in = input::load_serve_inputs(o.scenario, o.sets, o.profile);
  if (o.search_ratio) {
    if (!o.rates.empty() || !o.report.empty())
      throw core::InputError({"--search-ratio", "", 0}, "searches at the scenario's own arrival process",
                             "--search-ratio alone (with --set, --json, -j)");
    search_ratio(o, in);
    return;
  }
  const auto& model = in.inputs.model;
  const auto& topology = *in.inputs.topology;
  if (o.rates.empty()) {
    const serve::ServeResult r = serve::simulate_serving(model, topology, in.inputs.profile_or_null(), in.spec);
    const nlohmann::json j = results::serve_to_json(r);
    report(o, in, j);
    fmt::print("{}", o.json ? j.dump(2) + "\n" : results::serve_to_text(r));
    return;
  }
  const auto rates = core::parse_quantity_list(o.rates);
  if (!rates || rates->empty()) throw core::InputError({"--rates", "", 0}, "cannot read '" + o.rates + "'", "requests/s such as 1,2,4 or 1:64 (doubling)");
  std::vector<std::pair<double, serve::ServeResult>> curve;
  for (double rate : *rates) {
    if (!(rate > 0)) throw core::InputError({"--rates", "", 0}, fmt::format("rate {} is not positive", rate), "requests/s > 0");
    serve::ServeSpec spec = in.spec;
    spec.workload.arrival.kind = serve::ArrivalSpec::Kind::poisson;
    spec.workload.arrival.rate_per_s = rate;
    curve.emplace_back(rate, serve::simulate_serving(model, topology, in.inputs.profile_or_null(), spec));
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [rate, r] : curve) rows.push_back({{"rate_per_s", rate}, {"result", results::serve_to_json(r)}});
  const nlohmann::json j{{"name", in.spec.name}, {"curve", rows}};
  report(o, in, j);
  if (o.json) {
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("# {}: Poisson arrivals at each rate, {:.0f} s window\n{}", in.spec.name,
               in.spec.workload.duration_s - in.spec.workload.warmup_s, results::serve_curve_to_text(curve));
  }
}

}  // namespace

void attach_serve(CLI::App& command, int& exit_status) {
  auto o = std::make_shared<ServeOptions>();
  command.add_option("scenario", o->scenario, "Serving scenario YAML (scenarios/README.md, \"Serving scenarios\")")->required();
  command.add_option("--set", o->sets, "Override a scenario key: key=value (repeatable)");
  command.add_option("--rates", o->rates, "Poisson arrival rates in requests/s (1,2,4 or 1:64 doubling): the latency-throughput curve");
  command.add_option("--profile", o->profile, "Calibration profile JSON (from k3sim calibrate)");
  command.add_option("--report", o->report, "Write a self-contained HTML report to this file");
  command.add_flag("--json", o->json, "Print JSON");
  command.add_flag("--search-ratio", o->search_ratio,
                   "Try every prefill:decode split of the deployment's nodes on the same stream; print the one with the most goodput");
  command.add_option("-j,--jobs,--threads", o->threads, "Threads for --search-ratio (default: all cores; results do not depend on it)");
  command.callback([o, &exit_status] {
    run(*o);
    exit_status = 0;
  });
}

}  // namespace k3::cli
