#include "sim/parallel/schedule_registry.hpp"

#include "core/registry.hpp"

namespace k3::parallel {

// Each defined in its own file, schedule_<name>.cpp.
extern const PipelineScheduleEntry kOneFOneBSchedule;
extern const PipelineScheduleEntry kInterleavedSchedule;
extern const PipelineScheduleEntry kDualPipeSchedule;
extern const PipelineScheduleEntry kDualPipeVSchedule;

namespace {
constexpr const PipelineScheduleEntry* kSchedules[] = {
    &kOneFOneBSchedule,
    &kInterleavedSchedule,
    &kDualPipeSchedule,
    &kDualPipeVSchedule,
};
}  // namespace

std::span<const PipelineScheduleEntry* const> pipeline_schedules() { return kSchedules; }

const PipelineScheduleEntry& default_pipeline_schedule() { return *kSchedules[0]; }

const PipelineScheduleEntry& pipeline_schedule(std::string_view name, const core::InputLocation& where) {
  return core::entry_named(pipeline_schedules(), name, where, "pipeline schedule");
}

}  // namespace k3::parallel
