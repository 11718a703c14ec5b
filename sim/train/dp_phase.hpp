#pragma once
// The data-parallel work of a step as nodes of the step graph, run beside the passes on the engine: gradient
// reduction (reduce-scatter under ZeRO >= 1, all-reduce without), the optimizer update on this rank's shard, and
// the all-gather of updated parameters (Megatron-Core's overlap-grad-reduce and overlap-param-gather).
#include <string>
#include <vector>

#include "model/ops.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/exec/pipeline_graph.hpp"
#include "sim/parallel/parallel_layout.hpp"
#include "sim/parallel/stage_split.hpp"
#include "sim/train/step_result.hpp"
#include "sim/train/optimizer_update.hpp"
#include "sim/train/step_spec.hpp"

namespace k3::train {

struct AccountingInputs;

// What each pipeline rank's data-parallel work added to the step graph (add_dp_work).
struct DpRankNodes {
  std::vector<exec::GraphNodeId> gradient;      // gradient reductions, bucket by bucket (dense and expert groups)
  std::vector<exec::GraphNodeId> param_gather;  // parameter all-gathers ahead of the first forward passes
  // After the passes, one after another: Muon gradient gather, balancer histograms, balancer all-reduces, and
  // the optimizer update last; with the breakdown label of each.
  std::vector<std::pair<exec::GraphNodeId, std::string>> tail;
  std::vector<exec::GraphNodeId> gathered_parts;  // parts of first forward passes that wait for parameter buckets
};

struct DpWork {
  std::vector<DpRankNodes> ranks;
  // Per DP communication node: how many groups of the job run the same collective (the graph simulates one), so
  // that the job's link bytes are the node's (GraphTimes::bytes) times that.
  std::vector<std::pair<exec::GraphNodeId, double>> copies;
  exec::LinkClassBytes link_bytes;  // besides those: the Muon gathers' bytes over the whole job
  std::string gradient_label = "exposed: DP gradient reduction";  // the breakdown's name for its wait
  std::vector<std::string> assumptions;
};

// Adds every pipeline rank's DP work to `pipeline`'s graph: with overlap_grad_reduce, the gradients of each model
// chunk reduced in buckets of Megatron-Core's default size as its last backward pass produces them (the pass split
// at each bucket's share of the chunk's parameters), otherwise all at once after the rank's last pass; the Muon
// gather, balancer and optimizer after the reductions; under ZeRO (not FSDP, whose passes gather each layer) the
// updated parameters all-gathered bucket by bucket at the start of the step, each bucket ahead of the part of the
// chunk's first forward pass that uses it. Registers its numbers in `in.prov`.
// `ring_sms`: the SMs each DP collective's kernels hold while they run (GraphNode::sms).
DpWork add_dp_work(const AccountingInputs& in, exec::PipelineGraph& pipeline, int ring_sms);

// The DP work of `rank` as it ran: its exposed parts for the breakdown (what stuck out past the rank's passes, and
// how long the first forward passes waited for parameters), its trace spans.
struct DpPhase {
  std::vector<TimeShare> breakdown;
  core::SimTime param_gather_wait;  // inside the passes' span: first forward passes waiting for their parameters
  std::vector<TraceSpan> trace;
};
DpPhase dp_phase_of(const DpWork& work, const exec::PipelineGraph& pipeline, const exec::GraphTimes& times, int rank);

}  // namespace k3::train
