#pragma once
// What a step's pass programs are built from besides the plan: the scenario's settings a pass reads (recompute,
// host profile, CUDA graphs, the collectives' sizes) and the sampled expert load, gathered once per step; each
// pipeline rank's context adds the GPUs of its simulated block, their speeds and its FSDP groups.
#include <map>

#include "model/model_spec.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/train/step_plan.hpp"
#include "sim/train/step_spec.hpp"
#include "sim/workload/pass_builder.hpp"

namespace k3::train {

class PassContexts {
 public:
  // `plan` and `cost` must outlive it; `moe` is the sampled load by block (empty: the routed load balanced).
  // `thread_per_gpu`: every GPU of a block on its own thread even where one could stand for all (the symmetry
  // shortcut off, for the test that it changes nothing).
  PassContexts(const StepSpec& scenario, const model::ModelSpec& spec, const StepPlan& plan,
               const cost::OpCostModel& cost, std::map<int, workload::MoeLayerLoad> moe, bool thread_per_gpu = false);

  // The context of `rank`'s passes; `overlapping`: a pass with two collectives in flight at once (DualPipe's F&B).
  workload::PassBuildContext for_rank(int rank, bool overlapping) const;

 private:
  const StepPlan& plan_;
  workload::PassBuildContext shared_;  // everything but the block's GPUs and its FSDP groups
  bool balanced_ = true;  // every GPU of a simulated block carries the same routed load
  bool replays_overlapping_ = false;  // the network model replays concurrent collectives flow by flow
  bool thread_per_gpu_ = false;
};

}  // namespace k3::train
