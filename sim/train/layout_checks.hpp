#pragma once
// Checks of a parallel layout against the model and the batch, each failing with an InputError that names
// the scenario key and what would work.
#include "model/model_spec.hpp"
#include "sim/plan/pipeline_schedule.hpp"
#include "sim/plan/rank_mapping.hpp"
#include "sim/plan/scenario.hpp"

namespace k3::plan {

void check_layout(const Scenario& sc, const model::ModelSpec& spec, const RankMapping& map);
// Global batch / (DP x micro-batch size), when it divides.
int microbatches_per_pipeline(const Scenario& sc, const ParallelLayout& layout);
// make_schedule with errors pointing at the scenario file.
PipelineSchedule make_schedule_for(const Scenario& sc, const ParallelLayout& layout, int microbatches);

}  // namespace k3::plan
