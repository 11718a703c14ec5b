#pragma once
// The per-op trace of a step: one pass of each kind (F, B, W, DualPipe's F&B) re-simulated with every compute
// op and every collective recorded, so that a trace viewer shows each GPU of the simulated group with its
// compute stream and one stream per collective kind, and DualPipe's overlap can be checked by eye.
#include <functional>
#include <vector>

#include "sim/exec/pass_runner.hpp"
#include "sim/parallel/pipeline_schedule.hpp"
#include "sim/train/step_result.hpp"
#include "sim/workload/pass_program.hpp"
#include "topologies/topology.hpp"

namespace k3::train {

// The program of a pass as the step simulated it, and how many of its threads belong to the forward half
// (DualPipe's F&B: threads [0, forward_threads) run the forward micro-batch, the rest the backward one).
struct TracedProgram {
  workload::PassProgram program;
  int forward_threads = 0;
};

// For each pass kind, the first pass of the middle pipeline rank (else the lowest rank) that runs it, re-run
// op by op on `runner`.
// `program_of(rank, pass)` builds that pass's program.
std::vector<OpTracePass> trace_ops(const parallel::PipelineTimeline& timeline, const exec::PassRunner& runner,
                                   const topo::Topology& topology,
                                   const std::function<TracedProgram(int rank, const parallel::Pass& pass)>& program_of);

}  // namespace k3::train
