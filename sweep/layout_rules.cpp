#include "sweep/layout_rules.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/units.hpp"
#include "sim/train/step_plan.hpp"
#include "sim/train/step_memory.hpp"

namespace k3::sweep {

namespace {

// The step's own plan, so a point is refused for the reason `run` gives (no clock check: a plan point is a layout,
// its batch the scenario's).
train::StepPlan plan_of(const train::StepSpec& step, const model::ModelSpec& spec, const ClusterShape& cluster) {
  return train::make_step_plan(step, spec, cluster.gpus, cluster.gpus_per_node, {});
}

double parameter_state_bytes(const train::StepSpec& step, const train::StepPlan& c) {
  const auto& L = c.map.layout();
  double most = 0;
  for (int rank = 0; rank < L.pp; ++rank) {
    const auto stage_ids = c.schedule.stages_held(rank);
    train::MemoryInputs m;
    m.params = train::rank_params(c.blocks, c.stages, stage_ids, L.tp, L.ep, L.etp);
    m.dp = L.dp * L.cp;
    m.expert_dp = parallel::expert_dp(L);
    m.zero_stage = L.zero_stage;
    m.optimizer = step.optimizer.kind;
    m.moment_bytes = step.optimizer.moment_bytes;
    m.optimizer_offload_fraction = step.optimizer.offload_fraction;
    double dense = 0, muon = 0;
    for (int s : stage_ids) {
      for (int b : c.stages[static_cast<std::size_t>(s)].blocks) {
        for (const auto& op : c.blocks[static_cast<std::size_t>(b)].ops) {
          if (op.routed) continue;
          dense += op.params;
          if (op.muon_matrix) muon += op.params;
        }
      }
    }
    m.muon_fraction = dense > 0 ? muon / dense : 0;
    m.activations_per_microbatch = 0;  // a lower bound: what the step keeps for backward only adds
    most = std::max(most, train::memory_total(train::memory_per_gpu(m)));
  }
  return most;
}

}  // namespace

std::optional<RuleFailure> check_layout_rules(const train::StepSpec& step, const model::ModelSpec& spec,
                                              const ClusterShape& cluster) {
  try {
    const auto checked = plan_of(step, spec, cluster);
    const double bytes = parameter_state_bytes(step, checked);
    if (bytes > cluster.hbm_bytes) {
      return RuleFailure{kMemoryRule, fmt::format("weights, gradients and optimizer state alone need {:.1f} GiB per "
                                                  "GPU, more than the {:.1f} GiB of HBM",
                                                  bytes / core::kGiB, cluster.hbm_bytes / core::kGiB)};
    }
  } catch (const core::InputError& e) {
    return RuleFailure{e.where().key.empty() ? std::string("layout") : e.where().key, e.what()};
  }
  return std::nullopt;
}

double parameter_state_bytes_per_gpu(const train::StepSpec& step, const model::ModelSpec& spec,
                                     const ClusterShape& cluster) {
  return parameter_state_bytes(step, plan_of(step, spec, cluster));
}

}  // namespace k3::sweep
