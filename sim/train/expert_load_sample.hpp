#pragma once
// The step's routed-expert load: the routing sample of one EP group (workload::sample_moe, drawn from the
// scenario's balancer state when it names one), shared with the runs of a StepReuse that draw the same one,
// and the router settings it was drawn with, registered as the step's assumptions.
#include <map>

#include "core/provenance.hpp"
#include "model/model_spec.hpp"
#include "sim/train/step_plan.hpp"
#include "sim/train/step_reuse.hpp"
#include "sim/train/step_spec.hpp"
#include "sim/workload/moe_sampling.hpp"
#include "sim/workload/workload_spec.hpp"

namespace k3::train {

// `m` complete but for its balancer state, which is read from `load` when it names one. `reuse` may be null.
workload::MoeSample sample_expert_load(workload::MoeSamplingSpec m, const workload::ExpertLoadSpec& load,
                                       const model::ModelSpec& spec, StepReuse* reuse, core::Provenance& prov);

// The step's expert load: one EP group's routing sample and each MoE block's share of it. Samples are cycled by
// position inside each stage, so stages of the same composition are identical (their passes are simulated once).
struct StepExpertLoad {
  workload::MoeSample sample;                         // empty without expert parallelism
  std::map<int, workload::MoeLayerLoad> by_block;    // by block index; empty: the routed load balanced
};

// Without EP (or experts) nothing is sampled, but a balancer state the scenario names is still read: a state
// written for another model is an error whatever the layout.
StepExpertLoad sample_step_expert_load(const StepSpec& scenario, const model::ModelSpec& spec, const StepPlan& plan,
                                       int gpus_per_node, StepReuse* reuse, core::Provenance& prov);

}  // namespace k3::train
