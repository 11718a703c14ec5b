#pragma once
// What a step's passes are costed and replayed with, made from the scenario and the topology, each figure it
// assumes registered in the step's provenance: the op cost model (GPU, calibration profile, GEMM precision and
// kernels) and the pass runner's configuration (link efficiencies, all-to-all algorithm and DeepEP chunks, the
// compute slowdown of the SMs communication kernels hold, and the memos shared through `reuse`).
#include "core/provenance.hpp"
#include "sim/cost/calibration_profile.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/train/step_reuse.hpp"
#include "sim/train/step_spec.hpp"
#include "topologies/topology.hpp"

namespace k3::train {

// Throws core::InputError naming the scenario for kernels or a precision the GPU does not have.
cost::OpCostModel make_step_cost_model(const StepSpec& sc, const topo::Topology& topo,
                                       const cost::CalibrationProfile* profile, core::Provenance& prov);
// `reuse`: null for a run that shares nothing.
exec::PassRunnerConfig make_step_runner_config(const StepSpec& sc, const topo::Topology& topo, const StepReuse* reuse,
                                               core::Provenance& prov);

}  // namespace k3::train
