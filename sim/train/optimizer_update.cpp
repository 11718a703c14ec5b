#include "sim/train/optimizer_update.hpp"

#include <algorithm>

#include "sim/train/step_memory.hpp"

namespace k3::train {

namespace {

// Newton-Schulz on an m x n matrix (m <= n), 5 iterations of X <- aX + b(XX^T)X + c(XX^T)^2 X
// (Moonlight, arXiv:2502.16982): X X^T costs 2 m^2 n, the quadratic in it 2 m^3, the product with X 2 m^2 n.
double newton_schulz_flops(double rows, double cols, int iterations) {
  const double m = std::min(rows, cols);
  const double n = std::max(rows, cols);
  return iterations * (4 * m * m * n + 2 * m * m * m);
}

}  // namespace

double sustained_hbm(const cost::OpCostModel& cost) {
  return cost.device().hbm_bytes_per_s * cost.defaults().hbm.value;
}

OptimizerUpdate optimizer_update(const StepSpec& sc, const parallel::ParallelLayout& L,
                                 const std::vector<model::OpBlock>& blocks,
                                 const std::vector<parallel::StageBlocks>& stages, const std::vector<int>& stage_ids,
                                 const cost::OpCostModel& cost, const topo::GpuType& gpu) {
  const auto params = rank_params(blocks, stages, stage_ids, L.tp, L.ep, L.etp);
  const bool zero = L.zero_stage >= 1;
  const int data_ranks = L.dp * L.cp;
  OptimizerUpdate u;
  // Memory-bound element-wise work on this GPU's shard, plus Newton-Schulz for Muon.
  const double dense_shard = params.dense / (zero ? data_ranks : 1);
  const double routed_shard = params.routed / (zero ? parallel::expert_dp(L) : 1);
  const double hbm = sustained_hbm(cost);
  // AdamW reads fp32 master, two moments and the gradient (16 B) and writes master, moments and BF16
  // weights (14 B) per parameter; Muon keeps one moment (26 B).
  double ns_flops = 0;
  const int iterations = sc.optimizer.newton_schulz_iterations;
  if (sc.optimizer.kind == model::Optimizer::Muon) {
    for (int s : stage_ids) {
      for (int b : stages[static_cast<std::size_t>(s)].blocks) {
        for (const auto& op : blocks[static_cast<std::size_t>(b)].ops) {
          if (!op.muon_matrix) continue;
          if (const auto* g = std::get_if<model::GemmShape>(&op.shape)) {
            u.muon_params += op.params / L.tp;
            if (sc.optimizer.per_head_attention && op.weight_heads > 0) {
              // TP splits the heads; each local head's block is one matrix.
              const double heads = std::max(1.0, static_cast<double>(op.weight_heads) / L.tp);
              const double n = op.heads_on_input ? g->n : g->n / op.weight_heads;
              const double k = op.heads_on_input ? g->k / op.weight_heads : g->k;
              ns_flops += heads * newton_schulz_flops(n, k, iterations);
              // A head-aligned shard holds whole heads once there are at least as many heads as shards.
              if (heads >= data_ranks) u.whole_head_params += op.params / L.tp;
            } else {
              ns_flops += newton_schulz_flops(g->n / L.tp, g->k, iterations);
            }
          } else if (const auto* e = std::get_if<model::ExpertGemmShape>(&op.shape)) {
            const double local = static_cast<double>(e->experts) / L.ep;
            ns_flops += local * newton_schulz_flops(e->n, e->k, iterations);
            u.muon_params += op.params / L.ep;
          }
        }
      }
    }
  }
  const double shard = dense_shard + routed_shard;
  const double muon_share = params.dense + params.routed > 0 ? u.muon_params / (params.dense + params.routed) : 0;
  const double bytes = shard * (muon_share * 26.0 + (1 - muon_share) * 30.0);
  const double ns_rate = cost.device().bf16_flops_per_s * cost.defaults().gemm_bf16.value;
  const double f = sc.optimizer.offload_fraction;
  u.seconds = u.gpu_seconds = (1 - f) * bytes / hbm + ns_flops / ns_rate;
  if (f > 0) {
    // The host's share (AdamW only): fp32 gradients down and BF16 weights up the host link, one direction each, and
    // AdamW's 30 B per parameter at the host's DRAM bandwidth (an upper bound on the CPU's speed), pipelined over
    // parameter groups and beside the GPU's share.
    // Under FSDP's offload the gradients went down in the passes and the weights come up at the next gathers, both
    // on the network's host ports: only the CPU's part is left here.
    const double host = f * shard;
    // Each direction has its own link: the 4 B of gradient down outlast the 2 B of weight up.
    const double link = L.fsdp_offload ? 0.0 : host * 4 / gpu.host_link_bytes_per_s;
    u.host_seconds = std::max(link, host * 30 / gpu.host_memory_bytes_per_s);
    u.seconds = std::max(u.seconds, u.host_seconds);
  }
  return u;
}

}  // namespace k3::train
