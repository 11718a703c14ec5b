#pragma once
// Checks of a parallel layout against the model and the batch, each failing with an InputError that names
// the scenario key and what would work.
#include "model/model_spec.hpp"
#include "sim/parallel/schedule_registry.hpp"
#include "sim/parallel/rank_mapping.hpp"
#include "sim/train/step_spec.hpp"

namespace k3::train {

void check_layout(const StepSpec& sc, const model::ModelSpec& spec, const parallel::RankMapping& map);
// Global batch / (DP x micro-batch size), when it divides.
int microbatches_per_pipeline(const StepSpec& sc, const parallel::ParallelLayout& layout);
// make_schedule with errors pointing at the scenario file.
parallel::PipelineSchedule make_schedule_for(const StepSpec& sc, const parallel::ParallelLayout& layout, int microbatches);

}  // namespace k3::train
