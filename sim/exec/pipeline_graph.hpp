#pragma once
// A pipeline schedule as the passes of a StepGraph: each rank's passes in its schedule order on its compute
// stream, each pass a COMP_NODE of the duration the pass's own engine run gave it, and every activation (or
// activation-gradient) that leaves a rank a COMM_SEND_NODE the receiving pass depends on. The schedule is the
// order of the nodes; run_step_graph times it (and whatever else the step adds to the graph) in one run.
#include <functional>
#include <vector>

#include "sim/exec/graph_executor.hpp"
#include "sim/exec/step_graph.hpp"
#include "sim/parallel/pipeline_schedule.hpp"

namespace k3::exec {

struct PipelineGraphCosts {
  parallel::PassCosts passes;  // pass durations; `p2p` times a transfer when `transfer` is empty
  // A transfer from one pipeline rank to another as collectives on the network, in phases that run one after
  // another (TP slices sent side by side, then the receivers' TP all-gather). Empty: a fixed `passes.p2p`.
  std::function<std::vector<std::vector<net::CollectiveSpec>>(int from, int to)> transfer;
  int send_sms = 0;  // SMs a send's kernel holds while it runs (GraphNode::sms)
};

// One pass of the schedule in the graph: one node, or several where the step split it (StepGraph::split) to
// issue work part-way through it; `first` is the first part, `node` the last (what later work depends on).
struct ScheduledPass {
  parallel::Pass pass;
  GraphNodeId first = 0;
  GraphNodeId node = 0;
  core::SimTime duration;  // the whole pass, all parts
};

struct PipelineGraph {
  static constexpr GraphNodeId kNone = ~GraphNodeId{0};
  static constexpr std::size_t kNoPass = ~std::size_t{0};
  StepGraph graph;
  std::vector<std::vector<ScheduledPass>> passes;      // [rank]: in schedule order
  std::vector<std::vector<GraphNodeId>> blocking_sends;  // [rank]: sends that hold its compute stream
  std::vector<GraphNodeId> last_compute;                 // [rank]: the last node of its compute stream
  // [rank][chunk]: the index in passes[rank] of the last pass that produces the chunk's weight gradients (B, W or
  // F&B's backward half) and of the chunk's first forward pass; kNoPass where the rank runs no such pass.
  std::vector<std::vector<std::size_t>> last_gradient, first_forward;
};

// Asks `costs.passes` for each pass rank by rank in schedule order, as parallel::ask_each_pass walks them.
PipelineGraph pipeline_graph(const parallel::PipelineSchedule& schedule, const PipelineGraphCosts& costs);

// The passes' times as a PipelineTimeline (per rank: passes, busy time, time held by blocking sends; the
// makespan is the last compute-stream node of any rank). `with_passes` false leaves per_rank empty.
parallel::PipelineTimeline pipeline_timeline(const PipelineGraph& pipeline, const GraphTimes& times,
                                             bool with_passes = true);

// The schedule alone (no other step work) built and run: what a pipeline's passes take given their costs.
parallel::PipelineTimeline run_pipeline(const parallel::PipelineSchedule& schedule, const PipelineGraphCosts& costs,
                                        const PassRunner* runner = nullptr, bool with_passes = true);

}  // namespace k3::exec
