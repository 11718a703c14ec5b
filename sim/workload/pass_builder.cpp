#include "sim/workload/pass_builder.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <utility>

#include "core/error.hpp"

namespace k3::workload {

using core::SimTime;
using model::Op;
using model::OpKind;

namespace {

class StagePassBuilder {
 public:
  StagePassBuilder(PassProgram& p, const PassBuildContext& ctx, PassPart part)
      : p_(p), ctx_(ctx), part_(part), first_(static_cast<int>(p.threads.size())) {
    for (std::size_t g = 0; g < static_cast<std::size_t>(threads()); ++g) {
      PassThread t;
      t.gpu_slot = slot_of(ctx.gpus[g]);
      p_.threads.push_back(std::move(t));
    }
    host_debt_.assign(static_cast<std::size_t>(threads()), SimTime::zero());
  }

  int build(const parallel::StageBlocks& stage) {
    const bool backward = part_ != PassPart::forward;
    std::vector<int> order(stage.blocks.begin(), stage.blocks.end());
    if (backward) std::reverse(order.begin(), order.end());
    const bool fsdp = !ctx_.fsdp.dense.empty();
    // The weight-gradient pass needs no weights; the backward none when the forward's are kept.
    const bool gather = fsdp && part_ != PassPart::weight && (part_ == PassPart::forward || ctx_.fsdp.regather_in_backward);
    const bool reduce = fsdp && (part_ == PassPart::backward || part_ == PassPart::weight);
    // FSDP prefetch: the next layer's parameters are gathered while this one computes.
    std::vector<std::vector<int>> gathers;
    if (gather && !order.empty()) gathers.push_back(gather_params(order.front()));
    std::vector<int> reductions;
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (gather) {
        for (int c : gathers[i]) wait(c);
        if (i + 1 < order.size()) gathers.push_back(gather_params(order[i + 1]));
      }
      if (backward) {
        backward_block(order[i]);
      } else {
        forward_block(order[i]);
      }
      if (reduce) {
        for (int c : reduce_grads(order[i])) reductions.push_back(c);
      }
    }
    for (int c : reductions) wait(c);
    settle_host_debt();
    return first_;
  }

 private:
  int slot_of(parallel::GpuIndex gpu) {
    auto it = std::find(p_.gpus.begin(), p_.gpus.end(), gpu);
    if (it != p_.gpus.end()) return static_cast<int>(it - p_.gpus.begin());
    p_.gpus.push_back(gpu);
    return static_cast<int>(p_.gpus.size()) - 1;
  }
  int threads() const { return ctx_.one_thread_for_group ? 1 : static_cast<int>(ctx_.gpus.size()); }
  PassThread& thread(int g) { return p_.threads[static_cast<std::size_t>(first_ + g)]; }

  // A collective run by every group of `shape` in the block at once.
  int collective(CollectiveKind kind, std::shared_ptr<const TrafficMatrix> matrix, core::Bytes bytes,
                 std::string label, parallel::GroupShape shape) {
    std::vector<int> members;
    for (int g = 0; g < threads(); ++g) members.push_back(first_ + g);
    CollectiveCall call{kind, ctx_.gpus, bytes, std::move(matrix), std::move(label)};
    if (shape.size != static_cast<int>(ctx_.gpus.size())) {
      call.group_size = shape.size;
      call.group_stride = shape.stride;
    }
    return p_.add_collective(std::move(call), std::move(members));
  }
  // `module_host`: the host time of the module the collective is (dispatch, combine), beside what the ops
  // before it left to issue.
  void issue(int c, SimTime module_host = SimTime::zero(), bool host_sync = false) {
    for (int g = 0; g < threads(); ++g) {
      thread(g).steps.emplace_back(IssueStep{c, take_host_debt(g) + module_host, host_sync});
    }
  }

  // Host time: each op's share of its module's, owed until the thread's next step takes it (an op with no
  // GPU work of its own still costs the host its launches and framework work).
  SimTime take_host_debt(int g) {
    return std::exchange(host_debt_[static_cast<std::size_t>(g)], SimTime::zero());
  }
  void settle_host_debt() {
    for (int g = 0; g < threads(); ++g) {
      const SimTime left = take_host_debt(g);
      if (left == SimTime::zero()) continue;
      for (auto it = thread(g).steps.rbegin(); it != thread(g).steps.rend(); ++it) {
        if (auto* c = std::get_if<ComputeStep>(&*it)) {
          c->host += left;
          break;
        }
        if (auto* is = std::get_if<IssueStep>(&*it)) {
          is->host += left;
          break;
        }
      }
    }
  }
  void owe_module_host(cost::HostModule m, cost::HostPhase phase) {
    const SimTime t = module_host(m, phase);
    for (auto& d : host_debt_) d += t;
  }
  bool captured(cost::HostModule m) const { return ctx_.cuda_graphs[static_cast<std::size_t>(m)]; }
  // One occurrence of a module in one phase of the profile.
  SimTime module_host(cost::HostModule m, cost::HostPhase phase) const {
    return ctx_.host == nullptr ? SimTime::zero() : ctx_.host->per_occurrence(m, phase, captured(m));
  }
  // An op's share of its module's host time in `phase`: the module's ops in the block share it evenly (in the
  // weight pass, those with weight gradients).
  SimTime op_host(const Op& op, int block, cost::HostPhase phase) {
    if (ctx_.host == nullptr) return SimTime::zero();
    const auto m = host_module(op);
    auto [it, fresh] = ops_per_module_.try_emplace(block);
    if (fresh) {
      for (const Op& o : (*ctx_.blocks)[static_cast<std::size_t>(block)].ops) {
        if (o.kind == OpKind::Communication) continue;
        auto& n = it->second[static_cast<std::size_t>(host_module(o))];
        n[0] += 1;
        if (o.wgrad_flops > 0) n[1] += 1;
      }
    }
    const int n = it->second[static_cast<std::size_t>(m)][phase == cost::HostPhase::weight ? 1 : 0];
    return n > 0 ? SimTime::from_seconds(module_host(m, phase).seconds() / n) : SimTime::zero();
  }
  void wait(int c) {
    for (int g = 0; g < threads(); ++g) thread(g).steps.emplace_back(WaitStep{c, false});
  }
  // Under sequence parallelism the all-reduce splits into a reduce-scatter here and an all-gather where the
  // next TP region starts; ring reduce-scatter + all-gather move what one ring all-reduce moves, so the pair
  // is timed as one all-reduce.
  void all_reduce(const std::string& label) {
    const int c = collective(CollectiveKind::allreduce, nullptr, ctx_.tp_allreduce_bytes, label, ctx_.tp_shape);
    issue(c);
    wait(c);
  }

  // The parameters one rank holds of a block (after TP, EP and ETP), dense and routed.
  std::pair<double, double> block_params(int block) const {
    double dense = 0, routed = 0;
    for (const auto& op : (*ctx_.blocks)[static_cast<std::size_t>(block)].ops) {
      if (op.routed) {
        routed += op.params / (static_cast<double>(ctx_.ep) * ctx_.etp);
      } else {
        dense += tp_splits_params(op) ? op.params / ctx_.tp : op.params;
      }
    }
    return {dense, routed};
  }
  // One collective over the dense DP group and, at once, one over the EDP group; returns what to wait for. With
  // offload, each member's fp32 shard comes up from (all-gather) or goes down to (reduce-scatter) host memory too,
  // which a group of one still does.
  std::vector<int> fsdp_collective(int block, CollectiveKind kind, double bytes_per_param, const char* what) {
    const auto [dense, routed] = block_params(block);
    std::vector<int> members;
    for (int g = 0; g < threads(); ++g) members.push_back(first_ + g);
    std::vector<int> out;
    const auto add = [&](const std::vector<parallel::GpuIndex>& group, double params, double copies, std::string name) {
      if (params <= 0 || (group.size() <= 1 && !ctx_.fsdp.offload)) return;
      CollectiveCall call{kind, group, params * bytes_per_param, nullptr, std::move(name)};
      call.copies_per_block = copies;
      if (ctx_.fsdp.offload) {
        const double shard = params / static_cast<double>(group.size()) * kFsdpHostBytesPerParam;
        (kind == CollectiveKind::allgather ? call.host_in_bytes : call.host_out_bytes) = shard;
      }
      out.push_back(p_.add_collective(std::move(call), members));
    };
    add(ctx_.fsdp.dense, dense, ctx_.fsdp.dense_copies_per_block, label(what, block));
    add(ctx_.fsdp.experts, routed, ctx_.fsdp.expert_copies_per_block, label(what, block) + " (experts)");
    for (int c : out) issue(c);
    return out;
  }
  // FSDP's sharded parameters and gradients are fp32 (its mixed precision casts the gathered copy to BF16), so an
  // offloaded shard moves 4 B per parameter each way.
  static constexpr double kFsdpHostBytesPerParam = 4;
  // BF16 parameters gathered (nccl-tests all-gather size: the whole gathered buffer).
  std::vector<int> gather_params(int block) {
    return fsdp_collective(block, CollectiveKind::allgather, 2.0, "FSDP parameter all-gather");
  }
  std::vector<int> reduce_grads(int block) {
    return fsdp_collective(block, CollectiveKind::reducescatter, ctx_.fsdp.gradient_bytes, "FSDP gradient reduce-scatter");
  }

  // Experts split ETP ways see the tokens of their whole ETP group: an all-gather after the dispatch and a
  // reduce-scatter before the combine (each timed as half of a ring all-reduce of the gathered tokens).
  void expert_tp_gather(const std::string& what) {
    if (ctx_.etp <= 1 || !ctx_.sequence_parallel) return;
    const int c = collective(CollectiveKind::allgather, nullptr, ctx_.etp_bytes, what, ctx_.etp_shape);
    issue(c);
    wait(c);
  }

  // The attention core (or KDA scan) of one CP rank. Ring attention (p2p): each rank's K/V travels the CP
  // ring while the rank computes on what it has (Megatron-Core overlaps each ring step with the attention of
  // the previous one), so the exchange is issued before the compute and waited for after it; backward sends
  // K/V and their gradients. Ulysses (a2a): an all-to-all swaps the sequence split for a head split before
  // the core and back after it. KDA: the chunk states pass along the ring after each rank's local scan.
  void context_parallel(const Op& op, int block, bool backward, bool with_wgrad) {
    const auto& cp = ctx_.cp;
    const auto run = [&] { compute(op, block, backward, with_wgrad); };
    const Op local = local_op(op, block, 0);
    if (const auto* scan = std::get_if<model::ScanShape>(&local.shape)) {
      run();
      const double state = cp.sequences * scan->heads * scan->d_k * scan->d_v * 4.0;  // fp32 state per sequence
      const int c = collective(CollectiveKind::allgather, nullptr, cp.cp * state,
                               label(backward ? "CP KDA state pass backward" : "CP KDA state pass", block), ctx_.cp_shape);
      issue(c);
      wait(c);
      return;
    }
    const auto* a = std::get_if<model::AttentionShape>(&local.shape);
    if (a == nullptr) {
      run();
      return;
    }
    // K and V of this rank's tokens, BF16: MLA and MHA keep one per head; GQA one per KV head (replicated
    // over TP when there are fewer KV heads than TP ranks).
    const double tokens = a->seq * a->sequences;
    const double kv_heads = a->kind == model::AttentionKind::GQA ? std::max(1, a->kv_heads / ctx_.tp) : a->heads;
    const double kv_bytes = tokens * kv_heads * (a->qk_dim + a->v_dim) * 2.0;
    if (cp.comm == parallel::ContextParallelComm::p2p) {
      const double bytes = cp.cp * kv_bytes * (backward ? 2.0 : 1.0);
      const int c = collective(CollectiveKind::allgather, nullptr, bytes,
                               label(backward ? "CP ring K/V backward" : "CP ring K/V", block), ctx_.cp_shape);
      issue(c);
      run();
      wait(c);
      return;
    }
    const double qkv_bytes = tokens * a->heads * a->qk_dim * 2.0 + kv_bytes;
    const double out_bytes = tokens * a->heads * a->v_dim * 2.0;
    const auto a2a = [&](double bytes, const char* what) {
      const int c = collective(CollectiveKind::alltoall, nullptr, bytes, label(what, block), ctx_.cp_shape);
      issue(c);
      wait(c);
    };
    a2a(backward ? out_bytes : qkv_bytes, backward ? "CP all-to-all backward" : "CP all-to-all");
    run();
    a2a(backward ? qkv_bytes : out_bytes, backward ? "CP all-to-all backward" : "CP all-to-all");
  }

  // The op as GPU g of the block runs it.
  Op local_op(const Op& op, int block, int g) const {
    if (!op.routed) return shard_for_tp(op, ctx_.tp, ctx_.sequence_parallel);
    auto it = ctx_.moe.find(block);
    const int ep_rank = ctx_.ep_index.empty() ? 0 : ctx_.ep_index[static_cast<std::size_t>(g)];
    const double factor = it == ctx_.moe.end() ? 1.0 : it->second.routed_factor[static_cast<std::size_t>(ep_rank)];
    // Under sequence parallelism each rank routes 1/TP of the tokens, and an ETP group gathers its members'
    // tokens for experts split ETP ways; without it the TP ranks share the tokens and split the experts
    // (ETP = TP).
    const double tokens = ctx_.sequence_parallel ? static_cast<double>(ctx_.etp) / ctx_.tp : 1.0;
    Op o = model::scale_routed(op, factor * tokens);
    // An ETP rank holds 1/ETP of each expert's intermediate columns: its GEMMs and the activation between them
    // work on that slice of the (gathered) tokens' rows.
    if (ctx_.etp > 1 && o.kind == OpKind::ExpertGemm) o = shard_for_tp(o, ctx_.etp);
    if (ctx_.etp > 1 && o.name == "routed_activation") o = shard_for_tp(o, ctx_.etp, /*sequence_parallel=*/true);
    // A GPU reads only the weights of the experts it hosts.
    const double local_weights = o.weight_bytes / ctx_.ep;
    o.read_bytes -= o.weight_bytes - local_weights;
    o.weight_bytes = local_weights;
    if (auto* e = std::get_if<model::ExpertGemmShape>(&o.shape)) {
      // Each GPU hosts experts/ep experts and receives tokens from all ep ranks.
      e->experts = std::max(1, e->experts / ctx_.ep);
      e->tokens_per_expert *= ctx_.ep;
    }
    return o;
  }

  void compute(const Op& op, int block, bool backward, bool with_wgrad = true, bool only_wgrad = false) {
    // What a GPU computes depends only on its EP rank (routed ops) or on nothing (the rest): one cost per
    // distinct local op, not one per GPU of the block (a K3 block has 512 GPUs and 128 EP ranks).
    const auto ep_rank = [&](int g) { return ctx_.ep_index.empty() ? 0 : ctx_.ep_index[static_cast<std::size_t>(g)]; };
    cost_of_rank_.clear();
    SimTime host;
    if (!backward) {
      host = op_host(op, block, cost::HostPhase::forward);
    } else if (only_wgrad) {
      host = op_host(op, block, cost::HostPhase::weight);
    } else {
      host = op_host(op, block, cost::HostPhase::backward_input) +
             (with_wgrad ? op_host(op, block, cost::HostPhase::weight) : SimTime::zero());
    }
    for (int g = 0; g < threads(); ++g) {
      host_debt_[static_cast<std::size_t>(g)] += host;
      const auto key = static_cast<std::size_t>(op.routed ? ep_rank(g) : 0);
      if (key >= cost_of_rank_.size()) cost_of_rank_.resize(key + 1);
      if (!cost_of_rank_[key]) cost_of_rank_[key] = ctx_.cost->time(local_op(op, block, g));
      const cost::OpTime& t = *cost_of_rank_[key];
      double s = 0, quant = 0;
      if (!backward) {
        s = t.fwd, quant = t.fwd_quant;
      } else if (only_wgrad) {
        s = t.wgrad, quant = t.wgrad_quant;
      } else {
        s = t.dgrad + (with_wgrad ? t.wgrad : 0.0);
        quant = t.dgrad_quant + (with_wgrad ? t.wgrad_quant : 0.0);
      }
      if (!ctx_.gpu_speed.empty()) {
        const double speed = ctx_.gpu_speed[static_cast<std::size_t>(g)];
        s /= speed, quant /= speed;
      }
      if (quant > 0) {
        thread(g).steps.emplace_back(
            ComputeStep{SimTime::from_seconds(quant), ctx_.cost->quantization_label(),
                        ctx_.cost->memory_rate_measured(), take_host_debt(g)});
      }
      if (s <= 0) continue;
      thread(g).steps.emplace_back(
          ComputeStep{SimTime::from_seconds(s), cost::OpCostModel::category(op), t.measured, take_host_debt(g)});
    }
  }

  const MoeLayerLoad* moe(int block) const {
    if (ctx_.ep <= 1) return nullptr;
    auto it = ctx_.moe.find(block);
    return it == ctx_.moe.end() ? nullptr : &it->second;
  }

  std::string label(const char* what, int block) const {
    const auto& b = (*ctx_.blocks)[static_cast<std::size_t>(block)];
    return std::string(what) + " " + b.kind + " " + std::to_string(b.layer);
  }

  // The block's forward, or under `recompute` the ops of it that policy runs again before its backward.
  void forward_block(int block, const model::RecomputePolicy* recompute = nullptr) {
    const auto& ops = (*ctx_.blocks)[static_cast<std::size_t>(block)].ops;
    const MoeLayerLoad* m = moe(block);
    const char* tag = recompute != nullptr ? "recompute " : "";
    auto runs = [&](const Op& op) { return recompute == nullptr || model::recomputed(op, *recompute); };
    // The shared experts run while the dispatch is in flight, when the dispatch runs at all.
    const bool dispatch_runs = m != nullptr && std::any_of(ops.begin(), ops.end(), [&](const Op& op) {
      return op.kind == OpKind::Communication && op.name == "dispatch" && runs(op);
    });
    for (const Op& op : ops) {
      if (!runs(op)) continue;
      if (op.kind == OpKind::Communication) {
        if (m == nullptr) {  // no all-to-all, but the tokens are still permuted on the GPU
          owe_module_host(host_module(op), cost::HostPhase::forward);
          continue;
        }
        if (op.name == "dispatch") {
          const int c = collective(CollectiveKind::dispatch, m->dispatch, 0, std::string(tag) + label("dispatch", block),
                                   ctx_.ep_shape);
          issue(c, module_host(cost::HostModule::dispatch, cost::HostPhase::forward),
                ctx_.host != nullptr && ctx_.dispatch_host_sync);
          for (const Op& s : ops) {
            if (is_shared_expert(s) && runs(s)) compute(s, block, false);
          }
          wait(c);
          expert_tp_gather(std::string(tag) + label("ETP all-gather", block));
        } else {
          expert_tp_gather(std::string(tag) + label("ETP reduce-scatter", block));
          const int c = collective(CollectiveKind::combine, m->combine, 0, std::string(tag) + label("combine", block),
                                   ctx_.ep_shape);
          issue(c, module_host(cost::HostModule::combine, cost::HostPhase::forward));
          wait(c);
        }
        continue;
      }
      if (dispatch_runs && is_shared_expert(op)) continue;  // ran while the dispatch was in flight
      if (ctx_.cp.cp > 1 && (op.kind == OpKind::AttentionCore || op.kind == OpKind::KdaChunkScan)) {
        context_parallel(op, block, false, false);
      } else {
        compute(op, block, false);
      }
      if (ctx_.tp > 1 && ends_tp_region(op)) all_reduce(label("TP all-reduce", block));
    }
  }

  void backward_block(int block) {
    const auto& ops = (*ctx_.blocks)[static_cast<std::size_t>(block)].ops;
    const MoeLayerLoad* m = moe(block);
    const bool wgrad_here = part_ == PassPart::backward;
    if (part_ == PassPart::weight) {
      for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
        if (it->kind == OpKind::Communication) owe_module_host(host_module(*it), cost::HostPhase::weight);
        if (it->wgrad_flops > 0) compute(*it, block, true, true, true);
      }
      return;
    }
    if (ctx_.recompute.recomputes_anything() && model::recomputable((*ctx_.blocks)[static_cast<std::size_t>(block)])) {
      forward_block(block, &ctx_.recompute);
    }
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      const Op& op = *it;
      if (op.kind == OpKind::Communication) {
        const auto module = host_module(op);
        // A combined backward pass issues the module's weight-gradient work too.
        if (wgrad_here) owe_module_host(module, cost::HostPhase::weight);
        if (m == nullptr) {
          owe_module_host(module, cost::HostPhase::backward_input);
          continue;
        }
        if (op.name == "combine") {
          // Gradients of the expert outputs travel to the experts; the shared experts' backward hides it.
          const int c = collective(CollectiveKind::dispatch, m->dispatch_grad, 0, label("combine backward", block),
                                   ctx_.ep_shape);
          issue(c, module_host(module, cost::HostPhase::backward_input));
          for (auto s = ops.rbegin(); s != ops.rend(); ++s) {
            if (is_shared_expert(*s)) compute(*s, block, true, wgrad_here);
          }
          wait(c);
          expert_tp_gather(label("ETP all-gather backward", block));
        } else {
          expert_tp_gather(label("ETP reduce-scatter backward", block));
          const int c = collective(CollectiveKind::combine, m->combine_grad, 0, label("dispatch backward", block),
                                   ctx_.ep_shape);
          issue(c, module_host(module, cost::HostPhase::backward_input));
          wait(c);
        }
        continue;
      }
      if (m != nullptr && is_shared_expert(op)) continue;
      if (ctx_.tp > 1 && ends_tp_region(op)) all_reduce(label("TP all-reduce backward", block));
      if (ctx_.cp.cp > 1 && (op.kind == OpKind::AttentionCore || op.kind == OpKind::KdaChunkScan)) {
        context_parallel(op, block, true, wgrad_here);
      } else {
        compute(op, block, true, wgrad_here);
      }
    }
  }

  PassProgram& p_;
  const PassBuildContext& ctx_;
  PassPart part_;
  int first_;
  std::vector<std::optional<cost::OpTime>> cost_of_rank_;  // compute()'s scratch, by EP rank
  std::vector<SimTime> host_debt_;                          // per thread: host time its next step issues with
  // Per block and host module: its ops, and of them those with weight gradients (op_host's shares).
  std::map<int, std::array<std::array<int, 2>, cost::kHostModuleCount>> ops_per_module_;
};

}  // namespace

int append_stage_pass(PassProgram& program, const PassBuildContext& ctx, const parallel::StageBlocks& stage, PassPart part) {
  K3SIM_ASSERT(ctx.blocks != nullptr && ctx.cost != nullptr && !ctx.gpus.empty(), "incomplete pass context");
  K3SIM_ASSERT(ctx.gpu_speed.empty() || ctx.gpu_speed.size() == ctx.gpus.size(), "a speed for each GPU of the block");
  return StagePassBuilder(program, ctx, part).build(stage);
}

}  // namespace k3::workload
