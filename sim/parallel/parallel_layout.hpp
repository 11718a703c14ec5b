#pragma once
// How a step's ranks are laid out (scenario keys `parallel.*` and `batch.*`): what the rank mapping, the
// stage split and the pipeline schedules read. Parsed from YAML by sim/input; the schedules are
// registered by name (sim/parallel/schedule_registry.hpp).
//
// Parallel folding (Megatron-Core, arXiv:2504.14960): within one pipeline stage, attention and dense layers
// see the ranks as TP x CP x DP, the MoE layers see the same ranks as ETP x EP x EDP. EP need not divide DP
// and may span TP ranks; only TP x CP x DP = ETP x EP x EDP is required.
#include <cstdint>
#include <string>

namespace k3::parallel {

struct PipelineScheduleEntry;  // schedule_registry.hpp
const PipelineScheduleEntry& default_pipeline_schedule();

// How context-parallel ranks exchange what attention needs of the other ranks' tokens.
enum class ContextParallelComm {
  p2p,  // ring attention: K/V (or the KDA state) pass around the CP ring, overlapped with attention compute
  a2a,  // Ulysses: all-to-alls swap the sequence split for a head split around the attention core
};
const char* to_string(ContextParallelComm c);

struct ParallelLayout {
  int tp = 1;
  int pp = 1;
  int vpp = 1;        // virtual stages per rank (interleaved 1F1B)
  int ep = 1;
  int etp = 1;        // expert tensor parallelism: each routed expert's matrices split ETP ways
  int cp = 1;
  int dp = 0;         // 0: derived as GPUs / (tp * pp * cp)
  int zero_stage = 1; // 0-3; 3 with fsdp
  // FSDP (ZeRO-3 as Megatron-Core's and PyTorch's FSDP run it): each layer's parameters are all-gathered
  // before its forward and its backward, and its gradients reduce-scattered, every micro-batch.
  bool fsdp = false;
  // With fsdp, false: a micro-batch's forward gathers each layer's parameters once and keeps them until its
  // backward (PyTorch FSDP2's reshard_after_forward=False): half the all-gathers, the stage's parameters whole in
  // HBM. (Once per step is ZeRO-1's traffic and memory; the scenario key maps it there.)
  bool fsdp_regather_in_backward = true;
  // With fsdp: each rank's shards of parameters, gradients and optimizer state live in host memory (PyTorch FSDP's CPU
  // offload). A layer's fp32 shard comes up the GPU's host link before its all-gather, its gradient shard goes down
  // after its reduce-scatter, and the optimizer steps on the CPU.
  bool fsdp_offload = false;
  // Sequence parallelism with TP (Korthikanti et al., arXiv:2205.05198): norms and dropout run on 1/TP of
  // the tokens, the TP all-reduce becomes a reduce-scatter + all-gather pair. Megatron-Core requires it with
  // TP and EP together.
  bool sequence_parallel = false;
  ContextParallelComm cp_comm = ContextParallelComm::p2p;
  const PipelineScheduleEntry* schedule = &default_pipeline_schedule();  // never null
  bool ep_spread = false;  // false: EP groups over as few nodes as possible
  bool overlap_grad_reduce = true;  // DP gradient reduction overlapped with the last backward pass
  // Megatron-Core's --overlap-moe-expert-parallel-comm: 1F1B's steady-state forward and backward run as one F&B
  // pass (merge_steady_state), each micro-batch's all-to-alls overlapping the other's compute.
  bool a2a_overlap = false;
  // Which blocks each (virtual) stage holds, in Megatron-Core's --pipeline-model-parallel-layout syntax
  // (sim/parallel/stage_split.hpp); empty: decoder layers split evenly, embedding first, head last.
  std::string pipeline_layout;
};

// Ranks of one pipeline stage (TP x CP x DP once dp is resolved).
inline std::int64_t stage_ranks(const ParallelLayout& l) { return static_cast<std::int64_t>(l.tp) * l.cp * l.dp; }
// Expert data parallelism: each routed expert is replicated over EDP ranks (1 before dp is resolved).
inline int expert_dp(const ParallelLayout& l) {
  const std::int64_t experts_grid = static_cast<std::int64_t>(l.ep) * l.etp;
  return l.dp > 0 && experts_grid > 0 && stage_ranks(l) % experts_grid == 0 ? static_cast<int>(stage_ranks(l) / experts_grid)
                                                                           : 1;
}

// The blocks of a stage a training pass is built for (one EP group, or one TP group without EP): the step counts
// each pass's bytes this many times.
inline double pass_blocks_per_stage(const ParallelLayout& l) {
  return static_cast<double>(stage_ranks(l)) / (l.ep > 1 ? l.ep : l.tp);
}

struct BatchSpec {
  std::int64_t seq_len = 4096;
  std::int64_t global_batch_seqs = 0;
  std::int64_t micro_batch_seqs = 1;
  // Pipeline schedules per step, each on micro-batches / this of the pipeline's micro-batches (fill and drain
  // each time); the DP reduction and the optimizer once per step. 1: one schedule (Megatron-LM).
  std::int64_t gradient_accumulation_steps = 1;
};

}  // namespace k3::parallel
