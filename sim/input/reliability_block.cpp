#include "sim/input/reliability_block.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/memory.hpp"
#include "model/ops.hpp"
#include "sim/train/step_simulator.hpp"

namespace k3::input {

namespace {

std::vector<std::string> cause_names() {
  std::vector<std::string> out;
  for (const auto c : reliability::kFailureCauses) out.emplace_back(reliability::to_string(c));
  return out;
}

// `rates: llama3-405b` (the default), or a map of causes to interruptions per unit-hour (gpu, hbm, network, nic:
// per GPU-hour; host: per node-hour; software, planned: per job-hour), the causes not named keeping Llama 3's.
void read_rates(const core::YamlValue& v, reliability::RecoverySpec& out) {
  if (v.is_scalar()) {
    v.as_enum({"llama3-405b"});
    return;
  }
  if (!v.is_map()) v.fail("expected llama3-405b or a map of causes to rates", "llama3-405b, or {gpu: 9.2e-6, host: 1.7e-5, ...}");
  v.allow_only(cause_names());
  for (const auto c : reliability::kFailureCauses) {
    if (auto r = v.find(reliability::to_string(c))) out.rates[c] = r->as_non_negative();
  }
  out.rates_source = "scenario (causes not given: llama3-405b)";
}

}  // namespace

reliability::RecoverySpec read_reliability(const core::YamlValue& b) {
  if (!b.is_map()) b.fail("expected a mapping", "{restart_s: 600, ...} (scenarios/README.md, reliability)");
  b.allow_only({"restart_s", "rates", "storage_write_gb_per_s", "storage_read_gb_per_s", "checkpoint_interval_s",
                "spare_nodes", "repair_hours", "stragglers"});
  reliability::RecoverySpec s;
  s.block_where = b.where();
  s.interval_where = b.where();
  if (!b.has("restart_s")) {
    b.fail("restart_s is missing: no published restart time is general enough to default to",
           "restart_s: the seconds from an interruption to training again, without reading the checkpoint back");
  }
  s.restart_s = b.at("restart_s").as_non_negative();
  if (s.restart_s > 7 * 86400) b.at("restart_s").fail("a restart longer than a week", "0 to 604800 s");
  if (auto r = b.find("rates")) read_rates(*r, s);
  if (auto w = b.find("storage_write_gb_per_s")) s.storage_write_bytes_per_s = w->as_positive() * 1e9;
  if (auto r = b.find("storage_read_gb_per_s")) s.storage_read_bytes_per_s = r->as_positive() * 1e9;
  if (auto i = b.find("checkpoint_interval_s")) {
    s.checkpoint_interval_s = i->as_positive();
    s.interval_where = i->where();
  }
  if (auto n = b.find("spare_nodes")) {
    s.spare_nodes = static_cast<int>(n->as_non_negative_int());
    if (!b.has("repair_hours")) n->fail("spare_nodes needs repair_hours", "repair_hours: the hours a failed node is away");
  }
  if (auto h = b.find("repair_hours")) {
    if (!s.spare_nodes) h->fail("repair_hours is read only with spare_nodes", "spare_nodes: N beside it");
    s.repair_hours = h->as_positive();
  }
  if (auto g = b.find("stragglers")) {
    g->allow_only({"per_gpu_day", "slowdown", "gpu_speed", "found_after_s"});
    s.stragglers_per_gpu_day = g->at("per_gpu_day").as_non_negative();
    s.straggler_found_s = g->at("found_after_s").as_non_negative();
    if (g->has("slowdown") == g->has("gpu_speed")) {
      g->fail("a straggler needs one of slowdown and gpu_speed",
              "slowdown: the job's step-time factor, or gpu_speed: the slow GPU's speed (the step is simulated with it)");
    }
    if (auto slow = g->find("slowdown")) {
      s.straggler_slowdown = slow->as_positive();
      if (s.straggler_slowdown < 1) slow->fail("a straggler slows the job", "a step-time factor of 1 or more (1.5: 50% slower)");
    } else {
      const auto speed = g->at("gpu_speed");
      s.straggler_gpu_speed = speed.as_positive();
      if (*s.straggler_gpu_speed >= 1) speed.fail("a straggler is slower than the others", "a speed above 0 and below 1");
    }
  }
  return s;
}

void check_run_days(double days, const std::string& flag) {
  if (days > 0 && days <= reliability::kMaxRunDays) return;
  throw core::InputError({flag, "", 0}, fmt::format("{:g} days", days),
                         fmt::format("a run of more than 0 and at most {:g} days (the simulated clock spans 106)",
                                     reliability::kMaxRunDays));
}

void check_goodput_request(const Scenario& scenario, double days, const std::string& label) {
  check_run_days(days, "--days");
  if (scenario.reliability) return;
  throw core::InputError({scenario.source, "reliability", 0}, "--goodput needs a reliability: block in " + label,
                         "reliability: {restart_s: S} in the scenario, or --set reliability.restart_s=S");
}

reliability::GoodputResult simulate_run_goodput(const ScenarioInputs& inputs, const train::StepResult& step, double days,
                                                int replications, int threads) {
  auto spec = *inputs.scenario.reliability;
  derive_straggler_slowdown(spec, inputs, step, threads);
  return reliability::simulate_goodput(spec, run_facts(inputs.scenario, inputs.model, step, inputs.topology->gpus_per_node()),
                                       {days, replications, inputs.scenario.seed});
}

void derive_straggler_slowdown(reliability::RecoverySpec& spec, const ScenarioInputs& inputs,
                               const train::StepResult& step, int threads) {
  if (!spec.straggler_gpu_speed) return;
  // A straggler falls on any GPU alike, and what it costs depends on its pipeline stage's load: the mean over
  // GPUs spread evenly across the job, one per pipeline stage's worth of GPUs (at most 16).
  const int samples = std::clamp(inputs.scenario.parallel.pp, 1, 16);
  double sum = 0;
  for (int i = 0; i < samples; ++i) {
    const auto gpu = static_cast<std::int64_t>((i + 0.5) * static_cast<double>(step.gpus) / samples);
    auto slowed = inputs.scenario;
    std::erase_if(slowed.gpu_speed.slow, [gpu](const parallel::SlowGpu& g) { return g.gpu == gpu; });
    slowed.gpu_speed.slow.push_back({gpu, *spec.straggler_gpu_speed, spec.block_where});
    train::StepOptions options;
    options.threads = threads;
    sum += train::simulate_step(slowed, inputs.model, *inputs.topology, inputs.profile_or_null(), options).step_time_s;
  }
  spec.straggler_slowdown = std::max(1.0, sum / samples / step.step_time_s);
}

reliability::RunFacts run_facts(const train::StepSpec& spec, const model::ModelSpec& model, const train::StepResult& step,
                                int gpus_per_node) {
  return run_facts(spec, model, static_cast<double>(step.gpus), gpus_per_node, step.step_time_s, step.tokens_per_step);
}

reliability::RunFacts run_facts(const train::StepSpec& spec, const model::ModelSpec& model, double gpus,
                                int gpus_per_node, double step_time_s, double tokens_per_step) {
  reliability::RunFacts f;
  f.gpus = gpus;
  f.gpus_per_node = gpus_per_node;
  f.step_time_s = step_time_s;
  f.tokens_per_step = tokens_per_step;
  model::MicroBatch mb;
  mb.seq = static_cast<double>(spec.batch.seq_len);
  model::OptimizerBytes bytes;
  bytes.moment = spec.optimizer.moment_bytes;
  const auto state = model::param_state_bytes(model::build_ops(model, mb), spec.optimizer.kind, bytes);
  f.checkpoint_bytes = state.weights + state.optimizer;
  return f;
}

}  // namespace k3::input
