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
  band_options.seed = sc.seed;
  const auto band = train::simulate_step_band(sc, in.model, *in.topology, in.profile_or_null(), step, band_options);
  ValidationCase c;
  c.name = sc.name;
  c.group = "deepseek-v3";
  c.quantity = "training step";
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
  in_mechanism_band = published >= p10 && published <= p90;
}

ValidationReport run_validation(const ValidationPaths& paths) {
  ValidationReport r;
  core::Progress progress(5, paths.progress, paths.progress_mode, "validate", "families");
  const auto family = [&](const char* name, auto run) {
    progress.doing(name);
    auto cases = run(paths, r.assumptions);
    progress.done_one();
    return cases;
  };
  for (auto& c : family("DeepSeek-V3 on 2,048 H800", validate_deepseek_v3)) r.cases.push_back(std::move(c));
  double sum = 0;
  int rows = 0;
  for (auto& c : family("Megatron-LM SC21 on Selene", validate_megatron)) {
    sum += std::abs(c.rel_error);
    ++rows;
    r.cases.push_back(std::move(c));
  }
  r.megatron_mean_abs_error = rows > 0 ? sum / rows : 0;
  for (auto& c : family("Qwen3-235B on 256 H100", validate_qwen3)) r.cases.push_back(std::move(c));
  for (auto& c : family("DeepEP kernels", validate_deepep)) r.cases.push_back(std::move(c));
  for (auto& c : family("SGLang serving", validate_sglang)) r.cases.push_back(std::move(c));
  progress.finish();
  apply_discrepancy(r);
  return r;
}

}  // namespace k3::validate
