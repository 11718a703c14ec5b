// `k3sim compare <scenario.yaml>... [--set k=v]... [--json] [--report out.html]`: simulates each scenario
// (or each entry of a scenario's `variants:` list) as `k3sim run` would and tabulates them side by side
// with deltas against the first: step time and breakdown, tokens/s, MFU, memory headroom, bytes per link
// class, KV cache at the planned context, cost per trillion tokens.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <unistd.h>

#include "results/goodput_output.hpp"
#include "results/serve_output.hpp"
#include "sim/input/reliability_block.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/input/serve_scenario.hpp"
#include "sim/serve/serving_simulator.hpp"
#include "reports/sections/review.hpp"
#include "core/progress.hpp"
#include "core/version.hpp"
#include "model/kv_cache.hpp"
#include "core/error.hpp"
#include "core/quantity.hpp"
#include "results/step_output.hpp"
#include "results/band_output.hpp"
#include "sim/train/step_band.hpp"
#include "validate/validation.hpp"
#include "sim/train/step_simulator.hpp"
#include "sweep/comparison.hpp"
#include "sweep/variant_review.hpp"
#include "sweep/variants.hpp"

namespace k3::cli {

namespace {

struct CompareOptions {
  std::vector<std::string> scenarios;
  std::vector<std::string> sets;
  bool json = false;
  bool quiet = false;  // no progress on stderr
  std::string report;
  std::string profile;
  bool profile_any_device = false;
  int samples = 64;
  int jobs = 0;  // threads for each variant's passes and band runs; 0: one per hardware thread
  bool review = false;  // KV curves, traffic and balancer runs beside the steps (--review, or with --report)
  bool goodput = false;  // each variant's whole run under its reliability: block
  double days = 0;
};

// One variant simulated, with its band when asked for; `band_seed` is the same for every variant so that
// their samples are paired (sim/train/step_band.hpp). `discrepancy` widens the band (read once for all variants).
nlohmann::json simulate_variant(const sweep::Variant& v, const input::ScenarioInputs& in, const CompareOptions& o,
                                std::uint64_t band_seed, const std::optional<results::QuantityDiscrepancy>& discrepancy,
                                std::vector<double>& sample_step_s, std::vector<train::TraceSpan>* trace) {
  train::StepOptions opt;
  opt.trace = trace != nullptr;
  opt.version = std::string(core::version_string());
  opt.threads = o.jobs;
  const auto r = train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
  train::BandOptions band_options;
  band_options.samples = o.samples;
  band_options.seed = band_seed;
  band_options.threads = o.jobs;
  const auto band = train::simulate_step_band(in.scenario, in.model, *in.topology, in.profile_or_null(), r, band_options);
  sample_step_s = band.sample_step_time_s;
  if (trace) *trace = r.trace;
  auto step = results::step_to_json(r);
  results::add_band(step, band);
  if (o.goodput) {
    step["goodput"] = results::goodput_json(
        input::simulate_run_goodput(in, r, o.days, reliability::GoodputOptions{}.replications, o.jobs));
  }
  if (discrepancy) results::add_model_discrepancy(step, band, *discrepancy, validate::kDiscrepancyTableName);
  nlohmann::json e = sweep::variant_entry(v.name, v.scenario.source, step);
  // Inference-side view of the same model at the planned context: cache per sequence (model/kv_cache.hpp).
  const auto kv = model::kv_cache(in.model);
  const double context = static_cast<double>(in.scenario.batch.seq_len);
  e["kv_cache"] = {{"context_tokens", context},
                   {"bytes_per_token", kv.bytes_per_token},
                   {"state_bytes_per_sequence", kv.state_bytes_per_sequence},
                   {"bytes_per_sequence", kv.bytes_per_sequence(context)}};
  return e;
}

// The variants simulated, and (with a report) the review's KV curves, traffic and balancer runs beside them;
// `trace` gets the first variant's pipeline timeline when not null.
nlohmann::json compare_json(const std::vector<sweep::Variant>& variants, const CompareOptions& o,
                            std::vector<train::TraceSpan>* trace) {
  nlohmann::json list = nlohmann::json::array();
  std::vector<std::vector<double>> samples(variants.size());
  std::vector<input::ScenarioInputs> inputs;
  for (const auto& v : variants) inputs.push_back(input::resolve_scenario(v.scenario, o.profile, o.profile_any_device));
  std::optional<results::QuantityDiscrepancy> discrepancy;
  if (o.samples > 0) discrepancy = validate::shipped_discrepancy("training step");
  core::Progress progress(variants.size() + (o.review ? 1 : 0), stderr,
                          core::progress_mode(o.quiet, ::isatty(STDERR_FILENO) != 0, false), "compare", "parts");
  for (std::size_t i = 0; i < variants.size(); ++i) {
    progress.doing("variant " + variants[i].name + (o.samples > 0 ? " with its band" : ""));
    list.push_back(simulate_variant(variants[i], inputs[i], o, variants.front().scenario.seed, discrepancy, samples[i],
                                    i == 0 ? trace : nullptr));
    progress.done_one();
  }
  nlohmann::json out = sweep::comparison_json(list, samples);
  if (o.review) {
    std::vector<sweep::ReviewVariant> review;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const auto& r = list[i].at("result");
      review.push_back({variants[i].name, &inputs[i], r.at("tokens_per_step").get<double>(), r.at("gpus").get<std::int64_t>()});
    }
    progress.doing("review: KV cache, traffic, balancer");
    out["review"] = sweep::variant_review_json(review);
    progress.done_one();
  }
  progress.finish();
  return out;
}

std::string compare_text(const nlohmann::json& j) {
  std::set<std::string> networks;
  for (const auto& v : j.at("variants")) {
    networks.insert(v.at("result").at("network_model").get<std::string>());
  }
  std::string out = fmt::format("{} network model\n", fmt::join(networks, " and "));
  out += fmt::format("{:<56}", "deltas against " + j.at("baseline").get<std::string>());
  for (const auto& v : j.at("variants")) out += fmt::format(" {:>30}", v.at("name").get<std::string>());
  out += "\n";
  for (const auto& m : j.at("metrics")) {
    const auto unit = m.at("unit").get<std::string>();
    out += fmt::format("{:<56}", m.at("label").get<std::string>().substr(0, 56));
    bool first = true;
    for (const auto& c : m.at("values")) {
      if (c.is_null()) {
        out += fmt::format(" {:>30}", "-");
      } else if (first || !c.contains("delta_fraction")) {
        out += fmt::format(" {:>30}", core::format_in_unit(c.at("value").get<double>(), unit));
      } else {
        out += fmt::format(" {:>20} ({:+6.1f}%)", core::format_in_unit(c.at("value").get<double>(), unit),
                           100 * c.at("delta_fraction").get<double>());
      }
      first = false;
    }
    out += "\n";
  }
  return out;
}

// Serving scenarios side by side: each simulated as `k3sim serve` would.
int compare_serving(const CompareOptions& o) {
  if (!o.report.empty())
    throw core::InputError({"--report", "", 0}, "compare writes no report for serving scenarios yet",
                           "--json or the text table; `k3sim serve --report` for one scenario");
  std::vector<serve::ServeResult> results;
  for (const auto& path : o.scenarios) {
    const auto in = input::load_serve_inputs(path, o.sets, o.profile);
    results.push_back(serve::simulate_serving(in.inputs.model, *in.inputs.topology, in.inputs.profile_or_null(), in.spec));
  }
  const auto j = results::serve_compare_to_json(results);
  fmt::print("{}", o.json ? j.dump(2) + "\n" : results::serve_compare_to_text(j));
  return 0;
}

int compare(const CompareOptions& o) {
  std::size_t serving = 0;
  for (const auto& path : o.scenarios) serving += input::is_serve_scenario(path) ? 1 : 0;
  if (serving == o.scenarios.size()) return compare_serving(o);
  if (serving > 0)
    throw core::InputError({o.scenarios.front(), "", 0}, "training and serving scenarios cannot be compared together",
                           "all training scenarios (k3sim run) or all serving scenarios (k3sim serve)");
  std::vector<input::Override> sets;
  for (const auto& s : o.sets) sets.push_back(input::parse_override(s));
  std::vector<sweep::Variant> variants;
  for (const auto& path : o.scenarios) {
    for (auto& v : sweep::load_variants(path, sets)) variants.push_back(std::move(v));
  }
  if (o.goodput) {
    for (const auto& v : variants) input::check_goodput_request(v.scenario, o.days, "variant " + v.name);
  }
  std::vector<train::TraceSpan> trace;
  const auto j = compare_json(variants, o, o.report.empty() ? nullptr : &trace);
  std::string command = "k3sim compare";
  for (const auto& s : o.scenarios) command += " " + s;
  for (const auto& s : o.sets) command += " --set " + s;
  if (!o.profile.empty()) command += " --profile " + o.profile;
  if (o.samples != 64) command += " --samples " + std::to_string(o.samples);
  if (o.goodput) command += fmt::format(" --goodput --days {:g}", o.days);
  if (!o.report.empty()) {
    reports::RunInfo info;
    info.command = command;
    info.version = std::string(core::version_string());
    info.scenario_name = fmt::format("{}", fmt::join(o.scenarios, ", "));
    info.seed = variants.front().scenario.seed;
    info.scenario_text = variants.front().scenario.yaml_text;
    reports::write_compare_report(o.report, j, trace, info);
  }
  if (o.json) {
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", compare_text(j));
    const auto& w = j.at("winner");
    if (w.contains("samples")) {
      fmt::print("\nfastest step: {} in the plain runs and in {} of {} paired band samples ({})\n",
                 w.at("name").get<std::string>(), w.at("holds_in_samples").get<int>(), w.at("samples").get<int>(),
                 w.at("holds_across_band").get<bool>() ? "the winner holds across the band"
                                                       : "the winner does NOT hold across the band");
      const auto& d = j.at("variants").front().at("result").at("band").at("with_model_discrepancy");
      fmt::print("absolute step times also carry the model discrepancy (sigma of ln {:.3f} over published training "
                 "steps; band.with_model_discrepancy in --json); how much of it the variants share is not measured, "
                 "so the paired samples above leave it out\n",
                 d.at("sigma_log").get<double>());
    }
  }
  return 0;
}

}  // namespace

void attach_compare(CLI::App& command, int& exit_status) {
  auto o = std::make_shared<CompareOptions>();
  auto* sub = &command;
  sub->add_option("scenarios", o->scenarios, "Scenario YAML files; a file with `variants:` adds each variant")
      ->required();
  sub->add_option("--set", o->sets, "Override a key in every variant, e.g. --set network=analytical (repeatable)");
  sub->add_flag("--json", o->json, "Print the comparison as JSON");
  sub->add_flag("-q,--quiet", o->quiet, "No progress on stderr (shown on a terminal)");
  sub->add_option("--report", o->report, "Write an HTML report of the comparison");
  sub->add_flag("--goodput", o->goodput, "Also simulate each variant's whole run under its reliability: block "
                "(effective training time, goodput and the time lost per cause side by side)");
  sub->add_option("--days", o->days, "Length of the run --goodput simulates, in days (at most 100)");
  sub->add_option("--profile", o->profile, "Calibration profile JSON from `k3sim calibrate`");
  sub->add_flag("--profile-any-device", o->profile_any_device,
                "Use a profile measured on another device type (or the CPU backend) anyway");
  sub->add_option("-j,--jobs", o->jobs, "Threads for each variant's pass simulations and band runs (default 0: one "
                  "per hardware thread; the result does not depend on it)")->check(CLI::NonNegativeNumber);
  sub->add_option("--samples", o->samples, "Samples of each variant's uncertainty band, paired across variants "
                  "(default 64; 0: none)")->check(CLI::NonNegativeNumber);
  sub->add_flag("--review", o->review, "Add the review's data to --json: KV curves, all-to-all traffic, the "
                "latent saving and balancer runs (always computed with --report)");
  sub->callback([o, &exit_status] {
    o->review = o->review || !o->report.empty();
    exit_status = compare(*o);
  });
}

}  // namespace k3::cli
