#pragma once
// Builds the PassProgram of one pipeline pass of one stage: the model's operators in execution order,
// costed by the OpCostModel, with the expert all-to-alls and tensor-parallel all-reduces as collectives
// among the GPUs of the simulated group (an EP group, or a TP group for dense models).
//
// Overlap inside one micro-batch follows DeepSeek-V3 practice: the shared experts run while the
// dispatch all-to-all is in flight (forward) and while the gradient all-to-all of the combine is in flight
// (backward). Overlap between micro-batches comes from the schedule (DualPipe's F&B passes run two
// threads per GPU).
#include <map>
#include <memory>
#include <vector>

#include "model/memory.hpp"
#include "model/ops.hpp"
#include "sim/cost/cost_model.hpp"
#include "sim/workload/pass_program.hpp"
#include "sim/parallel/stage_split.hpp"

namespace k3::workload {

// One MoE layer as the simulated EP group sees it.
struct MoeLayerLoad {
  std::vector<double> routed_factor;  // per GPU: its routed-expert rows / the balanced share (1 = balanced)
  std::shared_ptr<const TrafficMatrix> dispatch;       // forward, tokens to experts
  std::shared_ptr<const TrafficMatrix> combine;        // forward, expert outputs back
  std::shared_ptr<const TrafficMatrix> dispatch_grad;  // backward of combine: output gradients to experts
  std::shared_ptr<const TrafficMatrix> combine_grad;   // backward of dispatch: input gradients back
};

struct PassBuildContext {
  const std::vector<model::OpBlock>* blocks = nullptr;
  const cost::OpCostModel* cost = nullptr;
  std::vector<parallel::GpuIndex> gpus;  // the simulated group, in rank order (the members of its collectives)
  // Give only the group's first GPU a thread. Valid when every GPU of the group does the same work (a
  // balanced load) and each collective's time does not depend on what else runs (solo collectives):
  // the group is then symmetric, and one GPU stands for all.
  bool one_thread_for_group = false;
  int tp = 1;
  int ep = 1;
  model::Recompute recompute = model::Recompute::None;
  std::map<int, MoeLayerLoad> moe;   // by block index
  core::Bytes tp_allreduce_bytes = 0;  // one micro-batch's activations (tokens x hidden x 2 B)
};

enum class PassPart { forward, backward, backward_input, weight };

// Appends one thread per GPU of the group doing `part` of `stage`; returns the index of the first.
int append_stage_pass(PassProgram& program, const PassBuildContext& ctx, const parallel::StageBlocks& stage, PassPart part);

// An op as one GPU runs it under tensor parallelism: GEMMs, attention and scans split TP ways;
// norms and elementwise ops are replicated (no sequence parallelism).
model::Op shard_for_tp(const model::Op& op, int tp);

}  // namespace k3::workload
