#pragma once
// Checks of a parallel layout against the model and the batch, each failing with an InputError that names
// the scenario key and what would work.
#include "model/model_spec.hpp"
#include "sim/parallel/schedule_registry.hpp"
#include "sim/parallel/rank_mapping.hpp"
#include "sim/train/step_spec.hpp"

namespace k3::train {

void check_layout(const StepSpec& sc, const model::ModelSpec& spec, const parallel::RankMapping& map);
// Refuses a batch whose step could not take less than kMaxStepSeconds even at `peak_flops_per_s` on every one of
// `gpus` (the step's model FLOPs over the cluster's peak): the engine's clock (64-bit picoseconds) spans 106 days,
// and such a step is a typo, not a plan. Names batch.seq_len when one sequence alone is that long.
void check_step_fits_clock(const StepSpec& sc, const model::ModelSpec& spec, std::int64_t gpus, double peak_flops_per_s);
inline constexpr double kMaxStepSeconds = 86'400;  // one day per step: 1% of the clock's span, the rest for slowness
// Global batch / (DP x micro-batch size), when it divides.
int microbatches_per_pipeline(const StepSpec& sc, const parallel::ParallelLayout& layout);
// make_schedule with errors pointing at the scenario file.
parallel::PipelineSchedule make_schedule_for(const StepSpec& sc, const parallel::ParallelLayout& layout, int microbatches);

}  // namespace k3::train
