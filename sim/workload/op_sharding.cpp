#include "sim/workload/op_sharding.hpp"

#include <algorithm>
#include <variant>

namespace k3::workload {

using model::Op;
using model::OpKind;

Op shard_for_tp(const Op& op, int tp, bool sequence_parallel) {
  if (tp <= 1) return op;
  switch (op.kind) {
    case OpKind::DenseGemm:
    case OpKind::Router:
    case OpKind::AttentionCore:
    case OpKind::KdaChunkScan:
    case OpKind::ExpertGemm:
      break;
    case OpKind::Communication:
      return op;
    default:
      if (!sequence_parallel) return op;
      break;  // the sequence is split TP ways: 1/TP of the tokens
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
  if (auto* e = std::get_if<model::ElementwiseShape>(&o.shape)) e->elements *= f;
  return o;
}

bool is_shared_expert(const Op& op) { return op.name.rfind("shared", 0) == 0; }

cost::HostModule host_module(const Op& op) {
  if (op.kind == OpKind::Communication) return op.name == "combine" ? cost::HostModule::combine : cost::HostModule::dispatch;
  constexpr model::RecomputeModules kMlpModules =
      model::kRecomputeMlp | model::kRecomputeMoe | model::kRecomputeMoeAct | model::kRecomputeSharedExperts;
  if (op.routed || is_shared_expert(op) || (op.recompute_modules & kMlpModules) != 0) return cost::HostModule::mlp;
  return cost::HostModule::attention;
}

bool tp_splits_params(const Op& op) {
  return op.kind == OpKind::DenseGemm || op.kind == OpKind::Router || op.kind == OpKind::Embedding;
}

bool ends_tp_region(const Op& op) {
  return op.name == "o_proj" || op.name == "w3_down" || op.name == "shared_down" || op.name == "latent_up_proj";
}

double tp_saved_fraction(const Op& op, int tp, bool sequence_parallel) {
  if (tp <= 1 || op.routed) return 1.0;
  if (sequence_parallel) return 1.0 / tp;
  switch (op.kind) {
    case OpKind::AttentionCore:
    case OpKind::KdaChunkScan:
      return 1.0 / tp;
    case OpKind::Elementwise:  // per-head or per-channel work inside a region; the AttnRes mix is on the residual
      return op.name.rfind("attn_res", 0) == 0 ? 1.0 : 1.0 / tp;
    case OpKind::Norm:  // KDA's per-head output norm sits inside the region; the others on whole tensors
      return op.name == "o_norm_gate" ? 1.0 / tp : 1.0;
    case OpKind::DenseGemm:
      return ends_tp_region(op) ? 1.0 / tp : 1.0;
    default:
      return 1.0;
  }
}

double etp_saved_fraction(const Op& op, int etp) {
  if (etp <= 1 || !op.routed) return 1.0;
  return op.name == "routed_activation" || op.name == "routed_down" ? 1.0 / etp : 1.0;
}

void apply_context_parallel(std::vector<model::OpBlock>& blocks, int cp) {
  for (auto& b : blocks) {
    for (auto& op : b.ops) {
      if (op.kind != OpKind::AttentionCore) continue;
      op.fwd_flops *= cp;
      op.dgrad_flops *= cp;
      op.wgrad_flops *= cp;
    }
  }
}

}  // namespace k3::workload
