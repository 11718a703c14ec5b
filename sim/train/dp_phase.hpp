#pragma once
// The end of a step: data-parallel gradient reduction (reduce-scatter under ZeRO >= 1, all-reduce
// without), the optimizer update on this rank's shard, and the all-gather of updated parameters.
// Megatron-LM overlaps the gradient reduction with the last backward pass and the parameter all-gather
// with the next step's first forward pass; only what sticks out of those passes is exposed.
#include <string>
#include <vector>

#include "model/ops.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/parallel/parallel_layout.hpp"
#include "sim/parallel/stage_split.hpp"
#include "sim/train/step_result.hpp"
#include "sim/train/step_spec.hpp"

namespace k3::train {

struct AccountingInputs;

// The optimizer update of the shard a pipeline rank holds (the stages `stage_ids`): memory-bound
// element-wise work, plus Newton-Schulz for Muon. From the layout and the device alone (no timeline, no
// network), so the step-time lower bound adds it too: every step ends with it on its critical rank.
struct OptimizerUpdate {
  double seconds = 0;
  double muon_params = 0;        // Muon matrices' parameters on the GPU (divided by TP or EP)
  double whole_head_params = 0;  // per-head matrices each DP rank owns whole heads of: no gather
};
OptimizerUpdate optimizer_update(const StepSpec& sc, const parallel::ParallelLayout& L,
                                 const std::vector<model::OpBlock>& blocks,
                                 const std::vector<parallel::StageBlocks>& stages, const std::vector<int>& stage_ids,
                                 const cost::OpCostModel& cost);

struct DpPhase {
  double gradient_sync_s = 0, gradient_exposed_s = 0;
  double muon_gather_s = 0;
  double optimizer_s = 0;
  double param_gather_s = 0, param_gather_exposed_s = 0;
  // The load balancer's bias update per step (all MoE layers of the rank): QB's histogram kernel over the
  // router scores and the all-reduce of the balancer's global view (n x B counts for QB-histogram).
  double balancer_kernel_s = 0, balancer_allreduce_s = 0;
  std::vector<TimeShare> breakdown;
  exec::LinkClassBytes link_bytes;
  std::vector<TraceSpan> trace;
  std::vector<std::string> assumptions;
  double exposed_total_s() const {
    return gradient_exposed_s + muon_gather_s + optimizer_s + param_gather_exposed_s + balancer_kernel_s +
           balancer_allreduce_s;
  }
};

DpPhase simulate_dp_phase(const AccountingInputs& in, int rank, core::SimTime first_pass, core::SimTime last_pass);

}  // namespace k3::train
