#pragma once
// Memory per GPU of one pipeline rank: its parameters' weights, gradients and optimizer state under the
// ZeRO stage, the activations of the micro-batches the schedule keeps in flight, and the all-to-all
// buffers, against the GPU's HBM.
#include <vector>

#include "model/memory.hpp"
#include "sim/train/step_spec.hpp"
#include "sim/parallel/stage_split.hpp"
#include "sim/train/step_result.hpp"

namespace k3::train {

struct RankParams {
  double dense = 0;   // parameters replicated across the DP group (divided by TP already)
  double routed = 0;  // routed-expert parameters held by this GPU (divided by EP x ETP)
};

RankParams rank_params(const std::vector<model::OpBlock>& blocks, const std::vector<parallel::StageBlocks>& stages,
                       const std::vector<int>& stage_indices, int tp, int ep, int etp);

struct MemoryInputs {
  RankParams params;
  int dp = 1;                 // dense-parameter DP degree (DP x CP)
  int expert_dp = 1;          // routed-parameter DP degree (dp / ep)
  int zero_stage = 0;
  bool gathered_weights_held = false;  // FSDP without re-gathering in backward: the whole weights stay resident
  model::Optimizer optimizer = model::Optimizer::AdamW;
  double moment_bytes = 4;    // per optimizer moment: fp32 or BF16
  double optimizer_offload_fraction = 0;  // of the optimizer state kept in host memory (not in HBM)
  bool shards_on_host = false;  // FSDP's offload: the weight and gradient shards in host memory too
  double muon_fraction = 0;   // of dense parameters that Muon optimises (matrices)
  core::Bytes activations_per_microbatch = 0;  // kept for backward by this rank's stages, one micro-batch
  double microbatches_in_flight = 1;
  core::Bytes recompute_working_set = 0;       // once per GPU: one block recomputing at a time
  core::Bytes alltoall_buffers = 0;
};

std::vector<MemoryShare> memory_per_gpu(const MemoryInputs& in);


}  // namespace k3::train
