#include "sim/train/dp_phase.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "model/balancing/balancers.hpp"
#include "sim/train/step_accounting.hpp"
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

// HBM bandwidth the step's own memory-bound work (optimizer, balancer histograms) runs at: datasheet x the
// registered sustained fraction.
double sustained_hbm(const cost::OpCostModel& cost) {
  return cost.device().hbm_bytes_per_s * cost.defaults().hbm.value;
}

// The router bias update of a balanced MoE run, once per MoE layer per step (issue 16): the balancer needs the
// global view of the step's routing. QB-histogram (K3) builds per-rank histograms of B bins per expert from
// the router scores (a memory-bound pass reading each token's n fp32 scores) and all-reduces the n x B
// counts over the ranks that saw the step's tokens (the DP group); sign-SGD all-reduces n counts. Charged
// after the backward passes, when the step's routing is complete; a uniform expert load has no balancer.
void add_balancer_cost(const AccountingInputs& in, const std::vector<int>& stage_ids,
                       parallel::GpuIndex base, DpPhase& d) {
  const auto& sc = in.scenario;
  if (sc.expert_load.kind == workload::ExpertLoadKind::uniform || !in.spec.has_moe()) return;
  const auto balancer = balancing::make_balancer(
      balancing::parse_balancer(sc.expert_load.balancer, "expert_load.balancer", sc.expert_load.bins));
  int moe_layers = 0;
  for (int s : stage_ids) {
    for (int b : in.stages[static_cast<std::size_t>(s)].blocks) {
      moe_layers += model::has_expert_dispatch(in.blocks[static_cast<std::size_t>(b)]) ? 1 : 0;
    }
  }
  if (moe_layers == 0) return;
  const auto& L = in.map.layout();
  const int experts = in.spec.moe.routed_experts;
  // Each of the DP x CP ranks histograms its share of the step's tokens (1/CP of each sequence).
  const int data_ranks = L.dp * L.cp;
  const double tokens_per_rank = in.microbatches * in.microbatch.tokens() / L.cp;
  const double bytes = balancer->allreduce_bytes_per_layer(experts, tokens_per_rank * data_ranks);
  if (balancer->bins() > 0) {
    const double kernel = std::max(tokens_per_rank * experts * 4.0 / sustained_hbm(in.cost), in.cost.defaults().min_kernel_s);
    d.balancer_kernel_s = moe_layers * kernel;
  }
  if (data_ranks > 1 && bytes > 0) {
    net::CollectiveSpec s;
    s.op = net::CollectiveOp::allreduce;
    s.algorithm = net::CollectiveAlgorithm::ring;
    const auto g = in.map.dp_group(base);
    s.ranks.assign(g.begin(), g.end());
    s.bytes = bytes;
    exec::LinkClassBytes moved;
    d.balancer_allreduce_s = moe_layers * in.runner.rings_time({s}, &moved);
    const double groups = static_cast<double>(in.map.gpus()) / data_ranks * moe_layers;
    for (std::size_t c = 0; c < moved.bytes.size(); ++c) d.link_bytes.bytes[c] += moved.bytes[c] * groups;
  }
  if (d.balancer_kernel_s > 0) d.breakdown.push_back({"load balancer: histogram kernels", "compute", d.balancer_kernel_s});
  if (d.balancer_allreduce_s > 0) {
    d.breakdown.push_back({"exposed: load balancer all-reduce", "communication", d.balancer_allreduce_s});
  }
  d.assumptions.push_back(fmt::format(
      "load balancer {}: per MoE layer per step, {:.4g} MB all-reduced over DP x CP {}{}, after the backward passes "
      "({} MoE layers on the critical rank: {:.3g} ms kernels, {:.3g} ms all-reduce)",
      balancer->name(), bytes / 1e6, data_ranks,
      balancer->bins() > 0 ? fmt::format(" and a histogram kernel reading {:.4g} tokens x {} fp32 router scores",
                                         tokens_per_rank, experts)
                           : std::string(),
      moe_layers, 1e3 * d.balancer_kernel_s, 1e3 * d.balancer_allreduce_s));
}

}  // namespace

OptimizerUpdate optimizer_update(const StepSpec& sc, const parallel::ParallelLayout& L,
                                 const std::vector<model::OpBlock>& blocks,
                                 const std::vector<parallel::StageBlocks>& stages, const std::vector<int>& stage_ids,
                                 const cost::OpCostModel& cost) {
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
  u.seconds = bytes / hbm + ns_flops / ns_rate;
  return u;
}

DpPhase simulate_dp_phase(const AccountingInputs& in, int rank, core::SimTime first_pass, core::SimTime last_pass) {
  const auto& L = in.map.layout();
  const auto& sc = in.scenario;
  DpPhase d;
  const std::vector<int> stage_ids = in.schedule.stages_held(rank);
  const auto params = rank_params(in.blocks, in.stages, stage_ids, L.tp, L.ep, L.etp);
  const parallel::GpuIndex base = in.map.gpu_of({0, 0, 0, rank});
  const int expert_dp = parallel::expert_dp(L);
  const bool zero = L.zero_stage >= 1;
  // Dense weights are replicated, reduced and sharded over DP x CP (RankMapping::dp_group).
  const int data_ranks = L.dp * L.cp;
  // The critical rank's reductions stand for every DP group: gpus / (DP x CP) groups move the same bytes.
  const double groups = static_cast<double>(in.map.gpus()) / data_ranks;
  auto scale_bytes = [&](const exec::LinkClassBytes& b) {
    for (std::size_t c = 0; c < b.bytes.size(); ++c) d.link_bytes.bytes[c] += b.bytes[c] * groups;
  };

  auto group_collectives = [&](net::CollectiveOp op, double bytes_per_param) {
    std::vector<net::CollectiveSpec> specs;
    if (data_ranks > 1 && params.dense > 0) {
      net::CollectiveSpec s;
      s.op = op;
      s.algorithm = net::CollectiveAlgorithm::ring;
      const auto g = in.map.dp_group(base);
      s.ranks.assign(g.begin(), g.end());
      s.bytes = params.dense * bytes_per_param;
      specs.push_back(s);
    }
    if (expert_dp > 1 && params.routed > 0) {
      net::CollectiveSpec s;
      s.op = op;
      s.algorithm = net::CollectiveAlgorithm::ring;
      const auto g = in.map.expert_dp_group(base);
      s.ranks.assign(g.begin(), g.end());
      s.bytes = params.routed * bytes_per_param;
      specs.push_back(s);
    }
    exec::LinkClassBytes bytes;
    const double t = specs.empty() ? 0.0 : in.runner.rings_time(specs, &bytes);
    scale_bytes(bytes);
    return t;
  };

  // fp32 by default (Megatron-LM with BF16 forces --accumulate-allreduce-grads-in-fp32); 2 bytes when
  // precision.gradient_reduce says the run reduced its BF16/FP16 gradients as they are.
  const double grad_bytes = sc.precision.gradient_reduce_bytes;
  // FSDP reduce-scatters each layer's gradients inside the backward passes (sim/workload/pass_builder).
  d.gradient_sync_s = L.fsdp ? 0.0
                             : group_collectives(zero ? net::CollectiveOp::reducescatter : net::CollectiveOp::allreduce,
                                                 grad_bytes);
  // Bucketed reductions start when the first bucket of gradients is ready and share the links and SMs with
  // the pass they hide behind, so only part of that pass may hide them.
  const double overlap =
      in.prov.add("dp.overlap_fraction", 1.0, 0.5, 1.0, "fraction", core::SourceKind::assumption,
                  "share of the last backward (first forward) pass that can hide the DP gradient reduction "
                  "(parameter all-gather): all of it taken (Megatron-LM overlap-grad-reduce / overlap-param-gather); "
                  "half as the low end for the first bucket's wait and the contention");
  const double hidden_by = L.overlap_grad_reduce ? overlap * last_pass.seconds() : 0.0;
  d.gradient_exposed_s = std::max(0.0, d.gradient_sync_s - hidden_by);

  const auto update = optimizer_update(sc, L, in.blocks, in.stages, stage_ids, in.cost);
  d.optimizer_s = update.seconds;
  const int iterations = sc.optimizer.newton_schulz_iterations;
  if (sc.optimizer.kind == model::Optimizer::Muon && zero) {
    // Moonlight's distributed Muon gathers each matrix's gradient shards (BF16) before Newton-Schulz; a
    // per-head block that one rank's shard holds whole needs no gather.
    const double gathered = params.dense + params.routed > 0
                                ? (update.muon_params - update.whole_head_params) / (params.dense + params.routed)
                                : 0;
    d.muon_gather_s = group_collectives(net::CollectiveOp::allgather, 2.0 * gathered);
  }
  if (zero && !L.fsdp) {  // FSDP gathers each layer's parameters before it runs instead
    d.param_gather_s = group_collectives(net::CollectiveOp::allgather, 2.0);
    d.param_gather_exposed_s = std::max(0.0, d.param_gather_s - overlap * first_pass.seconds());
  }

  add_balancer_cost(in, stage_ids, base, d);

  if (d.gradient_exposed_s > 0) {
    d.breakdown.push_back({zero ? "exposed: DP gradient reduce-scatter" : "exposed: DP gradient all-reduce",
                           "communication", d.gradient_exposed_s});
  }
  if (d.muon_gather_s > 0) d.breakdown.push_back({"exposed: Muon gradient all-gather", "communication", d.muon_gather_s});
  d.breakdown.push_back({"optimizer step", "optimizer", d.optimizer_s});
  if (d.param_gather_exposed_s > 0) {
    d.breakdown.push_back({"exposed: DP parameter all-gather", "communication", d.param_gather_exposed_s});
  }

  const double end = in.timeline.makespan.seconds();
  double at = end;
  auto span = [&](const char* name, const char* kind, double len) {
    if (len <= 0) return;
    d.trace.push_back({rank, "dp", name, kind, at, at + len});
    at += len;
  };
  span("gradient reduction (exposed)", "dp", d.gradient_exposed_s);
  span("Muon gradient gather", "dp", d.muon_gather_s);
  span("optimizer", "optimizer", d.optimizer_s);
  span("load balancer histograms", "optimizer", d.balancer_kernel_s);
  span("load balancer all-reduce", "dp", d.balancer_allreduce_s);
  span("parameter all-gather (exposed)", "dp", d.param_gather_exposed_s);

  d.assumptions.push_back(fmt::format(
      "DP: gradients reduced in {} with ring {} over DP x CP {} (dense) and EDP {} (experts), {} ({:.3f} s of {:.3f} s "
      "hidden); parameters all-gathered in BF16 overlapped with the next step's first forward pass (Megatron-LM "
      "overlap-grad-reduce / overlap-param-gather)",
      grad_bytes == 4 ? "fp32" : "16-bit floats", zero ? "reduce-scatter" : "all-reduce", data_ranks, expert_dp,
      L.overlap_grad_reduce ? "overlapped with the last backward pass" : "after the backward passes",
      std::min(d.gradient_sync_s, hidden_by), d.gradient_sync_s));
  d.assumptions.push_back(fmt::format(
      "optimizer: AdamW moves 30 B per parameter of the local shard, Muon 26 B plus {} Newton-Schulz iterations "
      "on full matrices after an all-gather of gradient shards (Moonlight distributed Muon, arXiv:2502.16982){}",
      iterations,
      sc.optimizer.per_head_attention
          ? "; attention projections per head (K3's per-head Muon): one matrix per head, and no gather for heads a "
            "head-aligned shard holds whole"
          : ""));
  return d;
}

}  // namespace k3::train
