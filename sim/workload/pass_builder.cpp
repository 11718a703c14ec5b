#include "sim/workload/pass_builder.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace k3::workload {

using core::SimTime;
using model::Op;
using model::OpKind;

Op shard_for_tp(const Op& op, int tp) {
  if (tp <= 1) return op;
  switch (op.kind) {
    case OpKind::DenseGemm:
    case OpKind::Router:
    case OpKind::AttentionCore:
    case OpKind::KdaChunkScan:
    case OpKind::ExpertGemm:
      break;
    default:
      return op;
  }
  Op o = op;
  const double f = 1.0 / tp;
  o.fwd_flops *= f;
  o.dgrad_flops *= f;
  o.wgrad_flops *= f;
  o.read_bytes *= f;
  o.write_bytes *= f;
  o.weight_bytes *= f;
  if (auto* g = std::get_if<model::GemmShape>(&o.shape)) g->n *= f;
  if (auto* a = std::get_if<model::AttentionShape>(&o.shape)) a->heads = std::max(1, a->heads / tp);
  if (auto* s = std::get_if<model::ScanShape>(&o.shape)) s->heads = std::max(1, s->heads / tp);
  if (auto* e = std::get_if<model::ExpertGemmShape>(&o.shape)) e->n *= f;
  return o;
}

namespace {

bool is_shared_expert(const Op& op) { return op.name.rfind("shared", 0) == 0; }
// The projections after which Megatron-style TP all-reduces the layer's partial outputs.
bool ends_tp_region(const Op& op) {
  return op.name == "o_proj" || op.name == "w3_down" || op.name == "shared_down" || op.name == "latent_up_proj";
}

class StagePassBuilder {
 public:
  StagePassBuilder(PassProgram& p, const PassBuildContext& ctx, PassPart part)
      : p_(p), ctx_(ctx), part_(part), first_(static_cast<int>(p.threads.size())) {
    for (std::size_t g = 0; g < static_cast<std::size_t>(threads()); ++g) {
      PassThread t;
      t.gpu_slot = slot_of(ctx.gpus[g]);
      p_.threads.push_back(std::move(t));
    }
  }

  int build(const parallel::StageBlocks& stage) {
    const bool backward = part_ != PassPart::forward;
    if (!backward) {
      for (int b : stage.blocks) forward_block(b, false);
    } else {
      for (auto it = stage.blocks.rbegin(); it != stage.blocks.rend(); ++it) backward_block(*it);
    }
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

  int collective(CollectiveKind kind, std::shared_ptr<const TrafficMatrix> matrix, core::Bytes bytes,
                 std::string label) {
    std::vector<int> members;
    for (int g = 0; g < threads(); ++g) members.push_back(first_ + g);
    return p_.add_collective({kind, ctx_.gpus, bytes, std::move(matrix), std::move(label)}, std::move(members));
  }
  void issue(int c) {
    for (int g = 0; g < threads(); ++g) thread(g).steps.emplace_back(IssueStep{c});
  }
  void wait(int c) {
    for (int g = 0; g < threads(); ++g) thread(g).steps.emplace_back(WaitStep{c});
  }
  void all_reduce(const std::string& label) {
    const int c = collective(CollectiveKind::allreduce, nullptr, ctx_.tp_allreduce_bytes, label);
    issue(c);
    wait(c);
  }

  // The op as GPU g of the group runs it.
  Op local_op(const Op& op, int block, int g) const {
    Op o = shard_for_tp(op, ctx_.tp);
    if (!o.routed) return o;
    auto it = ctx_.moe.find(block);
    const double factor = it == ctx_.moe.end() ? 1.0 : it->second.routed_factor[static_cast<std::size_t>(g)];
    o = model::scale_routed(o, factor);
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
    for (int g = 0; g < threads(); ++g) {
      const auto t = ctx_.cost->time(local_op(op, block, g));
      double s = 0, quant = 0;
      if (!backward) {
        s = t.fwd, quant = t.fwd_quant;
      } else if (only_wgrad) {
        s = t.wgrad, quant = t.wgrad_quant;
      } else {
        s = t.dgrad + (with_wgrad ? t.wgrad : 0.0);
        quant = t.dgrad_quant + (with_wgrad ? t.wgrad_quant : 0.0);
      }
      if (quant > 0) thread(g).steps.emplace_back(ComputeStep{SimTime::from_seconds(quant), ctx_.cost->quantization_label()});
      if (s <= 0) continue;
      thread(g).steps.emplace_back(ComputeStep{SimTime::from_seconds(s), cost::OpCostModel::category(op)});
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

  void forward_block(int block, bool recompute) {
    const auto& ops = (*ctx_.blocks)[static_cast<std::size_t>(block)].ops;
    const MoeLayerLoad* m = moe(block);
    const char* tag = recompute ? "recompute " : "";
    for (const Op& op : ops) {
      if (op.kind == OpKind::Communication) {
        if (m == nullptr) continue;
        if (op.name == "dispatch") {
          const int c = collective(CollectiveKind::dispatch, m->dispatch, 0, std::string(tag) + label("dispatch", block));
          issue(c);
          for (const Op& s : ops) {
            if (is_shared_expert(s)) compute(s, block, false);
          }
          wait(c);
        } else {
          const int c = collective(CollectiveKind::combine, m->combine, 0, std::string(tag) + label("combine", block));
          issue(c);
          wait(c);
        }
        continue;
      }
      if (m != nullptr && is_shared_expert(op)) continue;  // ran while the dispatch was in flight
      compute(op, block, false);
      if (ctx_.tp > 1 && ends_tp_region(op)) all_reduce(label("TP all-reduce", block));
    }
  }

  void backward_block(int block) {
    const auto& ops = (*ctx_.blocks)[static_cast<std::size_t>(block)].ops;
    const MoeLayerLoad* m = moe(block);
    const bool wgrad_here = part_ == PassPart::backward;
    if (part_ == PassPart::weight) {
      for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
        if (it->wgrad_flops > 0) compute(*it, block, true, true, true);
      }
      return;
    }
    if (ctx_.recompute == model::Recompute::Full) {
      forward_block(block, true);
    } else if (ctx_.recompute == model::Recompute::Selective) {
      for (const Op& op : ops) {
        if (op.cheap_recompute) compute(op, block, false);
      }
    }
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      const Op& op = *it;
      if (op.kind == OpKind::Communication) {
        if (m == nullptr) continue;
        if (op.name == "combine") {
          // Gradients of the expert outputs travel to the experts; the shared experts' backward hides it.
          const int c = collective(CollectiveKind::dispatch, m->dispatch_grad, 0, label("combine backward", block));
          issue(c);
          for (auto s = ops.rbegin(); s != ops.rend(); ++s) {
            if (is_shared_expert(*s)) compute(*s, block, true, wgrad_here);
          }
          wait(c);
        } else {
          const int c = collective(CollectiveKind::combine, m->combine_grad, 0, label("dispatch backward", block));
          issue(c);
          wait(c);
        }
        continue;
      }
      if (m != nullptr && is_shared_expert(op)) continue;
      if (ctx_.tp > 1 && ends_tp_region(op)) all_reduce(label("TP all-reduce backward", block));
      compute(op, block, true, wgrad_here);
    }
  }

  PassProgram& p_;
  const PassBuildContext& ctx_;
  PassPart part_;
  int first_;
};

}  // namespace

int append_stage_pass(PassProgram& program, const PassBuildContext& ctx, const parallel::StageBlocks& stage, PassPart part) {
  K3SIM_ASSERT(ctx.blocks != nullptr && ctx.cost != nullptr && !ctx.gpus.empty(), "incomplete pass context");
  return StagePassBuilder(program, ctx, part).build(stage);
}

}  // namespace k3::workload
