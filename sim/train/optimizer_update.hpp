#pragma once
// The optimizer update a pipeline rank runs on its shard at the end of a step (AdamW or Muon), from the layout and
// the device alone.
#include <vector>

#include "model/ops.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/parallel/parallel_layout.hpp"
#include "sim/parallel/stage_split.hpp"
#include "sim/train/step_spec.hpp"
#include "topologies/topology.hpp"

namespace k3::train {

// The optimizer update of the shard a pipeline rank holds (the stages `stage_ids`): memory-bound
// element-wise work, plus Newton-Schulz for Muon. From the layout and the device alone (no timeline, no
// network), so the step-time lower bound adds it too: every step ends with it on its critical rank.
struct OptimizerUpdate {
  double seconds = 0;             // the longer of the two shares below
  double gpu_seconds = 0;         // the GPU's share
  double host_seconds = 0;        // the offloaded share on the host (optimizer.offload_fraction), beside the GPU's
  double muon_params = 0;        // Muon matrices' parameters on the GPU (divided by TP or EP)
  double whole_head_params = 0;  // per-head matrices each DP rank owns whole heads of: no gather
};
OptimizerUpdate optimizer_update(const StepSpec& sc, const parallel::ParallelLayout& L,
                                 const std::vector<model::OpBlock>& blocks,
                                 const std::vector<parallel::StageBlocks>& stages, const std::vector<int>& stage_ids,
                                 const cost::OpCostModel& cost, const topo::GpuType& gpu);

// HBM bandwidth the step's own memory-bound work (optimizer, balancer histograms) runs at: datasheet x the
// registered sustained fraction.
double sustained_hbm(const cost::OpCostModel& cost);

}  // namespace k3::train
