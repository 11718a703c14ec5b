#pragma once
// The pipeline schedules, registered by name with a one-line description: what `parallel.schedule`
// and `k3sim list schedules` accept. Each schedule is one file (schedule_<name>.cpp) that defines its entry:
// the generator of every rank's passes, and how many micro-batches' activations a rank holds at its peak.
// Adding one is that file plus its two lines in schedule_registry.cpp.
#include <span>
#include <string_view>

#include "core/error.hpp"
#include "sim/parallel/pipeline_schedule.hpp"

namespace k3::parallel {

struct PipelineScheduleEntry {
  std::string_view name;
  std::string_view description;
  bool virtual_stages = false;  // reads parallel.vpp: each rank holds vpp model chunks
  // Every rank's passes. Throws InputError (key parallel.* or batch.*, no file) when the layout does not
  // fit the schedule; make_schedule checks the common bounds first.
  PipelineSchedule (*make)(int pp, int vpp, int microbatches) = nullptr;
  // Micro-batches whose activations `rank` keeps at the schedule's peak, in units of one micro-batch
  // through all of the rank's stages (what the memory estimate multiplies).
  double (*microbatches_in_flight)(int pp, int vpp, int rank, int microbatches) = nullptr;
};

// In listing order; the first is the default.
std::span<const PipelineScheduleEntry* const> pipeline_schedules();
// InputError at `where` listing the registered names when `name` is none of them.
const PipelineScheduleEntry& pipeline_schedule(std::string_view name, const core::InputLocation& where);

}  // namespace k3::parallel
