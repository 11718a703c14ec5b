#pragma once
// The layout rules a point must pass before it is worth simulating, checked without simulating it: the
// same checks `train::simulate_step` makes first (rank mapping, layout against model and batch, micro-batch
// split, pipeline schedule, stage split), and a closed-form lower bound of its memory per GPU (weights,
// gradients and optimizer state under its ZeRO stage; activations and buffers only add to it) against HBM.
// `k3sim plan` prunes its candidates with it and `k3sim sweep` refuses grid points with it.
#include <cstdint>
#include <optional>
#include <string>

#include "model/model_spec.hpp"
#include "sim/train/step_spec.hpp"

namespace k3::sweep {

// What a layout rule's refusal needs of the cluster.
struct ClusterShape {
  std::int64_t gpus = 0;
  int gpus_per_node = 0;
  double hbm_bytes = 0;  // per GPU
};

struct RuleFailure {
  std::string rule;     // the scenario key the rule checks (parallel.tp, batch.global_batch_seqs, ...), or "memory"
  std::string message;  // the refusal as `k3sim run` would print it
};

// The key under which a memory refusal is counted.
inline constexpr const char* kMemoryRule = "memory";

// The first rule the step breaks, or nothing when it may be simulated.
std::optional<RuleFailure> check_layout_rules(const train::StepSpec& step, const model::ModelSpec& spec,
                                              const ClusterShape& cluster);

// Weights, gradients and optimizer state per GPU of the pipeline rank holding the most, in bytes: a lower
// bound of what the simulated step reports. The layout must have passed the other rules.
double parameter_state_bytes_per_gpu(const train::StepSpec& step, const model::ModelSpec& spec,
                                     const ClusterShape& cluster);

}  // namespace k3::sweep
