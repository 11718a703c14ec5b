#include "sim/train/pass_context.hpp"

#include <utility>

namespace k3::train {

namespace {

bool balanced_load(const std::map<int, workload::MoeLayerLoad>& moe) {
  for (const auto& [block, layer] : moe) {
    for (double f : layer.routed_factor) {
      if (f != layer.routed_factor.front()) return false;
    }
  }
  return true;
}

}  // namespace

PassContexts::PassContexts(const StepSpec& sc, const model::ModelSpec& spec, const StepPlan& plan,
                           const cost::OpCostModel& cost, std::map<int, workload::MoeLayerLoad> moe, bool thread_per_gpu)
    : plan_(plan),
      balanced_(balanced_load(moe)),
      replays_overlapping_(sc.network->replays_overlapping_collectives),
      thread_per_gpu_(thread_per_gpu) {
  auto& ctx = shared_;
  ctx.blocks = &plan.blocks;
  ctx.cost = &cost;
  const auto& L = plan.map.layout();
  ctx.tp = L.tp;
  ctx.ep = L.ep;
  ctx.etp = L.etp;
  ctx.sequence_parallel = L.sequence_parallel;
  ctx.tp_shape = plan.map.tp_shape();
  ctx.ep_shape = plan.map.ep_shape();
  ctx.etp_shape = plan.map.etp_shape();
  ctx.cp_shape = plan.map.cp_shape();
  const auto block_size = plan.map.simulated_block(0).size();
  for (std::size_t g = 0; g < block_size; ++g) ctx.ep_index.push_back(plan.map.ep_index_in_block(static_cast<int>(g)));
  ctx.cp = plan.cp_load;
  ctx.fsdp.gradient_bytes = sc.precision.gradient_reduce_bytes;  // read only where the layout is FSDP
  ctx.recompute = sc.recompute;
  ctx.host = sc.host.loaded.get();
  ctx.cuda_graphs = sc.host.cuda_graphs;
  ctx.dispatch_host_sync = sc.communication.alltoall != workload::AllToAllAlgorithm::deepep_ll;
  ctx.moe = std::move(moe);
  // One CP rank's tokens (the micro-batch's ops are built on seq / CP).
  const double tokens = static_cast<double>(sc.batch.micro_batch_seqs) * sc.batch.seq_len / L.cp;
  ctx.tp_allreduce_bytes = tokens * spec.hidden * 2.0;
  ctx.etp_bytes = tokens / L.tp * L.etp * spec.moe.expert_io_dim(spec.hidden) * 2.0;
}

workload::PassBuildContext PassContexts::for_rank(int rank, bool overlapping) const {
  workload::PassBuildContext ctx = shared_;
  const auto& simulated = plan_.simulated;
  ctx.one_thread_for_group = !thread_per_gpu_ && balanced_ && simulated.uniform_within(rank) &&
                             (!overlapping || !replays_overlapping_);
  ctx.gpus = simulated.gpus[static_cast<std::size_t>(rank)];
  ctx.gpu_speed = simulated.speed[static_cast<std::size_t>(rank)];
  const auto& L = plan_.map.layout();
  if (L.fsdp) {
    ctx.fsdp.dense = plan_.map.dp_group(ctx.gpus.front());
    ctx.fsdp.experts = plan_.map.expert_dp_group(ctx.gpus.front());
    ctx.fsdp.regather_in_backward = L.fsdp_regather_in_backward;
    ctx.fsdp.offload = L.fsdp_offload;
    // The stage has stage_ranks / |group| copies of each group; the step counts one pass's bytes per block.
    const double stage = static_cast<double>(parallel::stage_ranks(L)), blocks = parallel::pass_blocks_per_stage(L);
    ctx.fsdp.dense_copies_per_block = stage / static_cast<double>(ctx.fsdp.dense.size()) / blocks;
    ctx.fsdp.expert_copies_per_block = stage / static_cast<double>(ctx.fsdp.experts.size()) / blocks;
  }
  return ctx;
}

}  // namespace k3::train
