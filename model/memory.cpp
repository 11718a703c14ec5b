#include "model/memory.hpp"

#include <algorithm>

namespace k3::model {

const char* to_string(Optimizer o) { return o == Optimizer::AdamW ? "adamw" : "muon"; }

ParamStateBytes param_state_bytes(const std::vector<OpBlock>& blocks, Optimizer opt, const OptimizerBytes& dt) {
  ParamStateBytes s;
  for (const auto& b : blocks) {
    for (const auto& op : b.ops) {
      s.params += op.params;
      const double moments = (opt == Optimizer::Muon && op.muon_matrix) ? 1 : 2;
      s.optimizer += op.params * (dt.master + moments * dt.moment);
    }
  }
  s.weights = s.params * dt.weight;
  s.gradients = s.params * dt.gradient;
  return s;
}

namespace {

core::Bytes saved(const OpBlock& b) {
  core::Bytes sum = 0;
  for (const auto& op : b.ops) sum += op.saved_bytes;
  return sum;
}

}  // namespace

bool recomputable(const OpBlock& b) { return b.role == BlockRole::Layer || b.role == BlockRole::Mtp; }

bool recomputed(const Op& op, const RecomputePolicy& policy) {
  return policy.full || (op.recompute_modules & policy.modules) != 0;
}

core::Bytes kept_bytes(const Op& op, RecomputeModules modules) {
  // Dropped when a recomputed module holds the op and the op is not where that module starts.
  if ((op.recompute_modules & modules & ~op.recompute_entry) != 0) return 0;
  if ((modules & kRecomputeMlaUpProj) != 0) return op.saved_bytes - op.saved_qkv_bytes;
  return op.saved_bytes;
}

ActivationBytes activation_memory(const std::vector<OpBlock>& blocks, const RecomputePolicy& policy) {
  ActivationBytes a;
  for (const auto& b : blocks) {
    if (!recomputable(b) || !policy.recomputes_anything()) {
      a.kept += saved(b);
    } else if (policy.full) {
      a.kept += b.input_bytes;
      a.recompute_peak = std::max(a.recompute_peak, saved(b));
    } else {
      core::Bytes kept = 0, region_dropped = 0;
      for (const auto& op : b.ops) {
        kept += kept_bytes(op, policy.modules);
        region_dropped += op.saved_bytes - kept_bytes(op, policy.modules & kRecomputeRegions);
      }
      a.kept += kept;
      a.recompute_peak = std::max(a.recompute_peak, region_dropped);
    }
  }
  return a;
}

core::Bytes activation_bytes(const std::vector<OpBlock>& blocks, const RecomputePolicy& policy) {
  return activation_memory(blocks, policy).total();
}

core::Flops recompute_flops(const std::vector<OpBlock>& blocks, const RecomputePolicy& policy) {
  core::Flops f = 0;
  for (const auto& b : blocks) {
    if (!recomputable(b)) continue;
    for (const auto& op : b.ops) {
      if (recomputed(op, policy)) f += op.fwd_flops;
    }
  }
  return f;
}

}  // namespace k3::model
