#pragma once
// The step's routed-expert load: the routing sample of one EP group (workload::sample_moe, drawn from the
// scenario's balancer state when it names one), shared with the runs of a StepReuse that draw the same one,
// and the router settings it was drawn with, registered as the step's assumptions.
#include "core/provenance.hpp"
#include "model/model_spec.hpp"
#include "sim/train/step_reuse.hpp"
#include "sim/workload/moe_sampling.hpp"
#include "sim/workload/workload_spec.hpp"

namespace k3::train {

// `m` complete but for its balancer state, which is read from `load` when it names one. `reuse` may be null.
workload::MoeSample sample_expert_load(workload::MoeSamplingSpec m, const workload::ExpertLoadSpec& load,
                                       const model::ModelSpec& spec, StepReuse* reuse, core::Provenance& prov);

}  // namespace k3::train
