#pragma once
// The scenario's `reliability:` block (scenarios/README.md): what interrupts a whole training run and what a
// recovery costs, read into a reliability::RecoverySpec; and the facts of the simulated step a run's goodput
// needs (reliability::RunFacts).
#include "core/yaml_input.hpp"
#include "model/model_spec.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/reliability/goodput.hpp"
#include "sim/train/step_result.hpp"
#include "sim/train/step_spec.hpp"

namespace k3::input {

reliability::RecoverySpec read_reliability(const core::YamlValue& block);

// A run of `days` (from `flag`) that the timeline can simulate: more than 0 and at most reliability::kMaxRunDays;
// InputError naming the flag otherwise.
void check_run_days(double days, const std::string& flag);

// `--goodput` of `run` and `compare`: `days` a run the timeline can simulate (check_run_days) and a reliability: block in
// `scenario` (`label` names it in the refusal: "the scenario", "variant k3"); InputError otherwise.
void check_goodput_request(const Scenario& scenario, double days, const std::string& label);

// The whole run's goodput of a simulated step (`step` of `inputs`): the straggler's slowdown derived where it is given
// by a GPU speed, then reliability::simulate_goodput over the step's run facts.
reliability::GoodputResult simulate_run_goodput(const ScenarioInputs& inputs, const train::StepResult& step, double days,
                                                int replications, int threads);

// A straggler given by its GPU's speed (reliability.stragglers.gpu_speed): the step simulated again with one GPU at that
// speed, on the non-symmetric path the slow GPU needs (sim/parallel/gpu_speed.hpp), once per pipeline stage's worth of
// GPUs (one GPU spread evenly in each, at most 16 runs), sets spec.straggler_slowdown to the mean ratio of the step
// times. Nothing when the slowdown was given.
void derive_straggler_slowdown(reliability::RecoverySpec& spec, const ScenarioInputs& inputs,
                               const train::StepResult& step, int threads);

// The step's GPUs, node size, time and tokens, and the bytes a checkpoint writes: the model's weights (BF16)
// and optimizer state (fp32 master weights and moments of the scenario's optimizer), once for the whole model.
reliability::RunFacts run_facts(const train::StepSpec& spec, const model::ModelSpec& model, double gpus,
                                int gpus_per_node, double step_time_s, double tokens_per_step);
reliability::RunFacts run_facts(const train::StepSpec& spec, const model::ModelSpec& model, const train::StepResult& step,
                                int gpus_per_node);

}  // namespace k3::input
