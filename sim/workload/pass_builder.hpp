#pragma once
// Builds the PassProgram of one pipeline pass of one stage: the model's operators in execution order,
// costed by the OpCostModel, with the expert all-to-alls and tensor-parallel all-reduces as collectives
// among the GPUs of the simulated block (whole TP, CP and EP groups; see RankMapping::simulated_block).
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
#include "sim/cost/host_profile.hpp"
#include "sim/workload/op_sharding.hpp"
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

// Context parallelism as the pass builder needs it; what moves is derived from each attention op's shape.
struct ContextParallelLoad {
  int cp = 1;
  parallel::ContextParallelComm comm = parallel::ContextParallelComm::p2p;
  double sequences = 1;  // per micro-batch (KDA hands one state per sequence along the ring)
};

// FSDP: the groups a layer's parameters are gathered over and its gradients reduce-scattered over.
struct FsdpGroups {
  std::vector<parallel::GpuIndex> dense;    // the DP group of the block's first GPU (empty: no FSDP)
  std::vector<parallel::GpuIndex> experts;  // its EDP group
  double gradient_bytes = 4;                // per parameter reduce-scattered (precision.gradient_reduce)
  bool regather_in_backward = true;         // false: the forward's gathered parameters serve the backward
  // Parameters and gradients kept in host memory (parallel.fsdp_offload, FSDP's CPU offload): each rank's fp32 shard of
  // a layer comes up its host port before the layer's all-gather, and its fp32 gradient shard goes down after the
  // reduce-scatter, as part of those collectives.
  bool offload = false;
  // How many copies of each group's collective the stage runs for one pass of a block (its DP groups over the
  // blocks the step multiplies a pass's bytes by): CollectiveCall::copies_per_block.
  double dense_copies_per_block = 1, expert_copies_per_block = 1;
};

struct PassBuildContext {
  const std::vector<model::OpBlock>* blocks = nullptr;
  const cost::OpCostModel* cost = nullptr;
  // The simulated block, in rank order: whole TP, CP and EP groups (parallel::RankMapping::simulated_block).
  std::vector<parallel::GpuIndex> gpus;
  // Each GPU's compute speed over the kernel tables' GPU, by position in `gpus`; empty: all at 1. A GPU's compute
  // steps take its op's time over its speed (with one thread for the group, the first GPU's speed).
  std::vector<double> gpu_speed;
  // Give only the block's first GPU a thread. Valid when every GPU of the block does the same work (a
  // balanced load) and each collective's time does not depend on what else runs (solo collectives):
  // the block is then symmetric, and one GPU stands for all.
  bool one_thread_for_group = false;
  int tp = 1;
  int ep = 1;
  int etp = 1;
  bool sequence_parallel = false;  // norms and the MoE on 1/TP of the tokens
  parallel::GroupShape tp_shape;   // positions of the block's TP groups
  parallel::GroupShape ep_shape;
  parallel::GroupShape etp_shape;
  parallel::GroupShape cp_shape;
  std::vector<int> ep_index;       // per position of the block: which EP rank (expert shard) it is
  ContextParallelLoad cp;
  model::RecomputePolicy recompute;
  std::map<int, MoeLayerLoad> moe;   // by block index
  core::Bytes tp_allreduce_bytes = 0;  // one micro-batch's activations on one CP rank (tokens x hidden x 2 B)
  core::Bytes etp_bytes = 0;           // the MoE tokens an ETP group gathers (tokens/TP x width x 2 B)
  FsdpGroups fsdp;
  // Host time: null, the host is never behind. Otherwise each module's host time per occurrence in each pass
  // (or one graph launch for a module in `cuda_graphs`) is spread evenly over the module's ops in the block.
  const cost::HostProfile* host = nullptr;
  std::array<bool, cost::kHostModuleCount> cuda_graphs{};
  // The forward dispatch holds each member's host until all have issued it (flat all-to-all's split sizes,
  // DeepEP normal mode's notify); only with a host profile.
  bool dispatch_host_sync = false;
};

enum class PassPart { forward, backward, backward_input, weight };

// Appends one thread per GPU of the group doing `part` of `stage`; returns the index of the first.
int append_stage_pass(PassProgram& program, const PassBuildContext& ctx, const parallel::StageBlocks& stage, PassPart part);

}  // namespace k3::workload
