#include "model/memory.hpp"

#include <algorithm>

namespace k3::model {

const char* to_string(Optimizer o) { return o == Optimizer::AdamW ? "adamw" : "muon"; }

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "?";
}

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

core::Bytes saved(const OpBlock& b, bool skip_cheap) {
  core::Bytes sum = 0;
  for (const auto& op : b.ops) {
    if (skip_cheap && op.cheap_recompute) continue;
    sum += op.saved_bytes;
  }
  return sum;
}

bool recomputable(const OpBlock& b) { return b.role == BlockRole::Layer || b.role == BlockRole::Mtp; }

}  // namespace

ActivationBytes activation_memory(const std::vector<OpBlock>& blocks, Recompute policy) {
  ActivationBytes a;
  for (const auto& b : blocks) {
    if (!recomputable(b) || policy == Recompute::None) {
      a.kept += saved(b, false);
    } else if (policy == Recompute::Selective) {
      a.kept += saved(b, true);
    } else {
      a.kept += b.input_bytes;
      a.recompute_peak = std::max(a.recompute_peak, saved(b, false));
    }
  }
  return a;
}

core::Bytes activation_bytes(const std::vector<OpBlock>& blocks, Recompute policy) {
  return activation_memory(blocks, policy).total();
}

core::Flops recompute_flops(const std::vector<OpBlock>& blocks, Recompute policy) {
  core::Flops f = 0;
  for (const auto& b : blocks) {
    if (!recomputable(b)) continue;
    for (const auto& op : b.ops) {
      if (policy == Recompute::Full || (policy == Recompute::Selective && op.cheap_recompute)) f += op.fwd_flops;
    }
  }
  return f;
}

}  // namespace k3::model
