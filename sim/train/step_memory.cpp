#include "sim/train/step_memory.hpp"

#include <algorithm>

#include "model/totals.hpp"
#include "sim/workload/pass_builder.hpp"

namespace k3::train {

RankParams rank_params(const std::vector<model::OpBlock>& blocks, const std::vector<parallel::StageBlocks>& stages,
                       const std::vector<int>& stage_indices, int tp, int ep, int etp) {
  RankParams p;
  for (int s : stage_indices) {
    for (int b : stages[static_cast<std::size_t>(s)].blocks) {
      for (const auto& op : blocks[static_cast<std::size_t>(b)].ops) {
        if (op.routed) {
          p.routed += op.params / (static_cast<double>(ep) * etp);
        } else {
          p.dense += workload::tp_splits_params(op) ? op.params / tp : op.params;
        }
      }
    }
  }
  return p;
}

std::vector<MemoryShare> memory_per_gpu(const MemoryInputs& in) {
  // Bytes per parameter (model/memory.hpp OptimizerBytes): BF16 weights, fp32 gradients, fp32 master copy,
  // moments in fp32 or BF16 (two for AdamW, one for Muon's matrices).
  model::OptimizerBytes b;
  b.moment = in.moment_bytes;
  const double moments_dense = in.optimizer == model::Optimizer::Muon
                                   ? in.muon_fraction * 1 + (1 - in.muon_fraction) * 2
                                   : 2;
  const double moments_routed = in.optimizer == model::Optimizer::Muon ? 1 : 2;
  const double opt_dense = in.params.dense * (b.master + moments_dense * b.moment);
  const double opt_routed = in.params.routed * (b.master + moments_routed * b.moment);
  const double shard_opt_dense = in.zero_stage >= 1 ? in.dp : 1;
  const double shard_opt_routed = in.zero_stage >= 1 ? in.expert_dp : 1;
  const double shard_grad_dense = in.zero_stage >= 2 ? in.dp : 1;
  const double shard_grad_routed = in.zero_stage >= 2 ? in.expert_dp : 1;
  const double shard_w_dense = in.zero_stage >= 3 ? in.dp : 1;
  const double shard_w_routed = in.zero_stage >= 3 ? in.expert_dp : 1;
  // FSDP's offload keeps the shards in host memory; the gathered layers are transient (or held, below).
  const double in_hbm = in.shards_on_host ? 0.0 : 1.0;
  std::vector<MemoryShare> out;
  out.push_back({"weights", (in.params.dense * b.weight / shard_w_dense + in.params.routed * b.weight / shard_w_routed) *
                                in_hbm});
  // Gathered in a forward and freed after the backward: with micro-batches in flight, always resident.
  if (in.gathered_weights_held) out.push_back({"gathered weights (FSDP)", (in.params.dense + in.params.routed) * b.weight});
  out.push_back({"gradients", (in.params.dense * b.gradient / shard_grad_dense +
                               in.params.routed * b.gradient / shard_grad_routed) *
                                  in_hbm});
  out.push_back({"optimizer state", (opt_dense / shard_opt_dense + opt_routed / shard_opt_routed) *
                                        (1 - in.optimizer_offload_fraction)});
  out.push_back({"activations", in.activations_per_microbatch * in.microbatches_in_flight});
  if (in.recompute_working_set > 0) out.push_back({"recomputation working set", in.recompute_working_set});
  if (in.alltoall_buffers > 0) out.push_back({"all-to-all buffers", in.alltoall_buffers});
  return out;
}

}  // namespace k3::train
