#include "validate/validation.hpp"


#include <fmt/format.h>

#include <cmath>

#include "model/model_spec.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_band.hpp"
#include "sim/train/step_simulator.hpp"
#include "validate/validation_csv.hpp"
#include "topologies/topology.hpp"

namespace k3::validate {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}  // namespace

ValidationPaths default_validation_paths() {
  const std::string root = K3SIM_VALIDATION_SOURCE_DIR;
  return {root + "/validate/data", root + "/scenarios"};
}

std::vector<ValidationCase> validate_deepseek_v3(const ValidationPaths& paths, std::vector<std::string>& assumptions) {
  const auto table = read_published_csv(paths.data_dir + "/deepseek-v3-training.csv");
  const auto in = input::load_scenario_inputs(paths.scenario_dir + "/deepseek-v3-h800-2048.yaml", {}, "");
  const input::Scenario& sc = in.scenario;
  train::StepOptions opt;
  opt.trace = false;
  const auto step = train::simulate_step(sc, in.model, *in.topology, in.profile_or_null(), opt);
  for (const auto& a : step.assumptions) assumptions.push_back("DeepSeek-V3: " + a);
  train::BandOptions band_options;
  band_options.samples = paths.band_samples;
  band_options.sensitivity = false;
  band_options.seed = sc.seed;
  const auto band = train::simulate_step_band(sc, in.model, *in.topology, in.profile_or_null(), step, band_options);
  ValidationCase c;
  c.name = sc.name;
  c.group = "deepseek-v3";
  c.metric = "step time";
  c.unit = "s";
  c.predicted = step.step_time_s;
  c.published = table.number(0, "step_time_s");
  c.rel_error = (c.predicted - c.published) / c.published;
  if (band.samples > 0) c.set_band(band.step_time_s.p10, band.step_time_s.p50, band.step_time_s.p90);
  c.set_memory(train::memory_total(step.memory), step.hbm_bytes);
  c.source = "Insights into DeepSeek-V3 (ISCA'25) Table 4, via validate/data/deepseek-v3-training.csv";
  c.setup = fmt::format("PP{} DualPipe, EP{}, {} micro-batches per pipeline, {} network", sc.parallel.pp,
                        sc.parallel.ep, step.microbatches, step.network_model);
  return {c};
}

void ValidationCase::set_band(double lo, double mid, double hi) {
  has_band = true;
  p10 = lo;
  p50 = mid;
  p90 = hi;
  p50_rel_error = (p50 - published) / published;
  in_band = published >= p10 && published <= p90;
}

ValidationReport run_validation(const ValidationPaths& paths) {
  ValidationReport r;
  for (auto& c : validate_deepseek_v3(paths, r.assumptions)) r.cases.push_back(std::move(c));
  double sum = 0;
  int rows = 0;
  for (auto& c : validate_megatron(paths, r.assumptions)) {
    sum += std::abs(c.rel_error);
    ++rows;
    r.cases.push_back(std::move(c));
  }
  r.megatron_mean_abs_error = rows > 0 ? sum / rows : 0;
  for (auto& c : validate_qwen3(paths, r.assumptions)) r.cases.push_back(std::move(c));
  for (auto& c : validate_deepep(paths, r.assumptions)) r.cases.push_back(std::move(c));
  for (auto& c : validate_sglang(paths, r.assumptions)) r.cases.push_back(std::move(c));
  for (const auto& c : r.cases) {
    r.cases_with_band += c.has_band ? 1 : 0;
    r.cases_in_band += c.has_band && c.in_band ? 1 : 0;
  }
  return r;
}

nlohmann::json validation_to_json(const ValidationReport& report) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : report.cases) {
    cases.push_back({{"case", c.name},
                     {"group", c.group},
                     {"metric", c.metric},
                     {"unit", c.unit},
                     {"predicted", c.predicted},
                     {"published", c.published},
                     {"rel_error", c.rel_error},
                     {"source", c.source},
                     {"setup", c.setup}});
    if (c.has_band) {
      auto& j = cases.back();
      j["band"] = {{"p10", c.p10}, {"p50", c.p50}, {"p90", c.p90}};
      j["p50_rel_error"] = c.p50_rel_error;
      j["in_band"] = c.in_band;
    }
    if (c.has_memory) {
      cases.back()["memory"] = {
          {"bytes_per_gpu", c.memory_bytes}, {"hbm_bytes", c.hbm_bytes}, {"fits", c.memory_bytes <= c.hbm_bytes}};
    }
  }
  return {{"cases", cases},
          {"megatron_mean_abs_error", report.megatron_mean_abs_error},
          {"coverage", {{"cases_with_band", report.cases_with_band},
                        {"cases_in_band", report.cases_in_band},
                        {"fraction", report.cases_with_band > 0
                                         ? static_cast<double>(report.cases_in_band) / report.cases_with_band
                                         : 0.0}}},
          {"assumptions", report.assumptions}};
}

std::string validation_to_text(const ValidationReport& report) {
  std::string out = fmt::format("{:<28} {:<30} {:>12} {:>12} {:>9}  {:<27} {:>9} {}\n", "case", "metric", "predicted",
                                "published", "error", "band P10 .. P90", "P50 error", "in band");
  for (const auto& c : report.cases) {
    const char* unit = c.unit == "TFLOP/s" ? "TF" : c.unit.c_str();
    out += fmt::format("{:<28} {:<30} {:>8.3f} {:<3} {:>8.3f} {:<3} {:>+8.1f}%", c.name, c.metric, c.predicted, unit,
                       c.published, unit, 100 * c.rel_error);
    if (c.has_band) {
      out += fmt::format("  {:>9.3f} .. {:>9.3f} {:<3} {:>+8.1f}% {}", c.p10, c.p90, unit, 100 * c.p50_rel_error,
                         c.in_band ? "yes" : "no");
    }
    out += "\n";
  }
  if (report.cases_with_band > 0) {
    out += fmt::format("\ncoverage: {} of {} published values inside the P10..P90 band ({:.0f}%; an 80% band "
                       "should hold about 80% of them)\n",
                       report.cases_in_band, report.cases_with_band,
                       100.0 * report.cases_in_band / report.cases_with_band);
  }
  // Every published training run ran, so it fit in its GPUs' memory: a row over HBM is the memory model's error.
  int training = 0, fit = 0;
  std::string over;
  for (const auto& c : report.cases) {
    if (!c.has_memory) continue;
    ++training;
    if (c.memory_bytes <= c.hbm_bytes) {
      ++fit;
    } else {
      over += fmt::format("  {}: {:.1f} of {:.1f} GiB\n", c.name, c.memory_bytes / kGiB, c.hbm_bytes / kGiB);
    }
  }
  if (training > 0) {
    out += fmt::format("\nmemory: {} of {} published training runs fit in HBM as simulated (the most loaded GPU){}\n{}",
                       fit, training, over.empty() ? "" : "; over:", over);
  }
  out += fmt::format("\nMegatron-LM SC21 Table 1: mean absolute error {:.1f}% (TF = TFLOP/s per GPU)\n",
                     100 * report.megatron_mean_abs_error);
  out += "\nsetups and sources\n";
  for (const auto& c : report.cases) out += fmt::format("  {}: {}; published: {}\n", c.name, c.setup, c.source);
  return out;
}

}  // namespace k3::validate
