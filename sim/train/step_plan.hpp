#pragma once
// What a step is before anything is timed: the rank mapping, the pipeline schedule, one micro-batch's ops and their
// split into stages, built once from the scenario with every check `k3sim run` makes on the layout, in its order.
// The step simulation, its lower bound and plan's layout rules all read this one value.
#include <cstdint>
#include <vector>

#include "model/model_spec.hpp"
#include "model/ops.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/parallel/gpu_speed.hpp"
#include "sim/parallel/pipeline_schedule.hpp"
#include "sim/parallel/rank_mapping.hpp"
#include "sim/parallel/stage_split.hpp"
#include "sim/train/step_spec.hpp"
#include "sim/workload/pass_builder.hpp"

namespace k3::train {

struct StepPlanOptions {
  // The GPU's fastest rate: a step whose span cannot fit the simulated clock is refused (0: not checked).
  double peak_flops_per_s = 0;
  // How linear-layer inputs are kept for backward: as quantized as the GEMMs that read them.
  cost::Precision gemm_precision = cost::Precision::bf16;
};

struct StepPlan {
  parallel::RankMapping map;
  int microbatches = 0;  // per pipeline
  parallel::PipelineSchedule schedule;
  model::MicroBatch microbatch;  // one CP rank's share of one micro-batch
  std::vector<model::OpBlock> blocks;
  std::vector<parallel::StageBlocks> stages;
  workload::ContextParallelLoad cp_load;
  parallel::SimulatedBlocks simulated;  // each pipeline rank's simulated block and its GPUs' speeds
};

// Throws core::InputError naming the scenario key: a layout that does not tile the cluster, does not fit the model
// or the batch, a step beyond the clock, a schedule that cannot run it, layers that do not split into its stages.
StepPlan make_step_plan(const StepSpec& sc, const model::ModelSpec& spec, std::int64_t gpus, int gpus_per_node,
                        const StepPlanOptions& options);

// Bytes per element of a dispatched or combined activation: FP8 carries one fp32 scale per 128 elements
// (DeepSeek-V3, arXiv:2412.19437 section 3.3).
double element_bytes(workload::ElementType t);

}  // namespace k3::train
