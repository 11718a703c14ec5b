#include "sim/train/step_plan.hpp"

#include "sim/train/layout_checks.hpp"
#include "sim/workload/op_sharding.hpp"

namespace k3::train {

double element_bytes(workload::ElementType t) { return t == workload::ElementType::fp8 ? 1.0 + 4.0 / 128 : 2.0; }

StepPlan make_step_plan(const StepSpec& sc, const model::ModelSpec& spec, std::int64_t gpus, int gpus_per_node,
                        const StepPlanOptions& options) {
  parallel::RankMapping map(sc.parallel, gpus, gpus_per_node, sc.source);
  const auto& L = map.layout();
  check_layout(sc, spec, map);
  if (options.peak_flops_per_s > 0) check_step_fits_clock(sc, spec, map.gpus(), options.peak_flops_per_s);
  const int microbatches = microbatches_per_pipeline(sc, L);
  auto schedule = make_schedule_for(sc, L, microbatches);
  model::MicroBatch mb;
  mb.sequences = static_cast<double>(sc.batch.micro_batch_seqs);
  mb.seq = static_cast<double>(sc.batch.seq_len) / L.cp;  // one CP rank's share of each sequence
  mb.dtypes.dispatch_bytes = element_bytes(sc.precision.dispatch);
  mb.dtypes.combine_bytes = element_bytes(sc.precision.combine);
  // Linear-layer inputs are kept for backward as quantized: FP8 with a scale per 128 elements, MXFP8 and NVFP4
  // as their columnwise copy with its block scales (MXFP8's 1 + 1/32 bytes equal FP8's 1 + 4/128).
  if (options.gemm_precision == cost::Precision::fp8) {
    mb.dtypes.saved_linear_input_bytes = element_bytes(workload::ElementType::fp8);
  } else if (cost::block_scaled(options.gemm_precision)) {
    mb.dtypes.saved_linear_input_bytes = cost::block_scaled_bytes_per_element(options.gemm_precision);
  }
  auto blocks = model::build_ops(spec, mb);
  workload::ContextParallelLoad cp_load;
  if (L.cp > 1) {
    workload::apply_context_parallel(blocks, L.cp);
    cp_load = {L.cp, L.cp_comm, mb.sequences};
  }
  auto stages = L.pipeline_layout.empty() ? parallel::split_into_stages(blocks, schedule.stages(), sc.source)
                                          : parallel::split_by_layout(blocks, schedule.stages(), L.pipeline_layout, sc.source);
  auto simulated = parallel::choose_simulated_blocks(map, parallel::GpuSpeeds(sc.gpu_speed, map.gpus(), sc.seed));
  return {std::move(map), microbatches, std::move(schedule), mb, std::move(blocks), std::move(stages), cp_load,
          std::move(simulated)};
}

}  // namespace k3::train
