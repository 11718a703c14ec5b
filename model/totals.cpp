#include "model/totals.hpp"

#include <algorithm>

#include "model/kv_cache.hpp"

namespace k3::model {

double block_params(const OpBlock& b) {
  double p = 0;
  for (const auto& op : b.ops) p += op.params;
  return p;
}

double block_activated_params(const OpBlock& b) {
  double p = 0;
  for (const auto& op : b.ops) p += op.activated_params;
  return p;
}

core::Flops block_training_flops(const OpBlock& b) {
  core::Flops f = 0;
  for (const auto& op : b.ops) if (op.model_flops) f += op.training_model_flops();
  return f;
}

namespace {

core::Flops block_fwd_flops(const OpBlock& b) {
  core::Flops f = 0;
  for (const auto& op : b.ops) if (op.model_flops) f += op.fwd_flops;
  return f;
}

}  // namespace

ModelTotals summarize(const ModelSpec& spec, double seq) {
  MicroBatch mb;
  mb.sequences = 1;
  mb.seq = seq;
  const double T = mb.tokens();
  const auto blocks = build_ops(spec, mb);
  MicroBatch nc = mb;
  nc.causal = false;
  const auto blocks_nc = build_ops(spec, nc);

  ModelTotals t;
  t.seq = seq;
  double mtp_activated = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    const double params = block_params(b);
    const double act = block_activated_params(b);
    const core::Flops train = block_training_flops(b) / T;
    core::Flops routed = 0;
    for (const auto& op : b.ops) {
      if (!op.model_flops && b.role != BlockRole::Mtp) t.elementwise_flops_per_token += (op.fwd_flops + op.bwd_flops()) / T;
      if (op.routed && op.model_flops) routed += op.training_model_flops() / T;
      if (op.kind == OpKind::Embedding) t.embedding_params += op.params;
      if (op.name == "dispatch" && b.role == BlockRole::Layer) {
        const auto& c = std::get<CommShape>(op.shape);
        t.dispatch_elements_per_token = c.copies_per_token * c.elements_per_copy;
      }
    }
    if (b.role == BlockRole::Mtp) {
      t.mtp_params += params;
      mtp_activated += act;
      t.mtp_training_flops_per_token += train;
    } else {
      t.total_params_without_mtp += params;
      t.activated_params += act;
      t.training_flops_per_token += train;
      t.training_flops_per_token_noncausal += block_training_flops(blocks_nc[i]) / T;
      t.forward_flops_per_token += block_fwd_flops(b) / T;
      t.routed_flops_per_token += routed;
    }
    auto it = std::find_if(t.layers.begin(), t.layers.end(), [&](const LayerKindTotals& k) { return k.kind == b.kind; });
    if (it == t.layers.end()) {
      t.layers.push_back({b.kind, 0, 0, 0, 0, 0, 0});
      it = t.layers.end() - 1;
    }
    it->count += 1;
    it->params += params;
    it->activated_params += act;
    it->fwd_flops_per_token += block_fwd_flops(b) / T;
    it->flops += train;
    it->routed_flops_per_token += routed;
  }
  t.total_params = t.total_params_without_mtp + (spec.published.count_includes_mtp ? t.mtp_params : 0);
  if (spec.published.count_includes_mtp) t.activated_params += mtp_activated;
  t.activated_params_with_embedding = t.activated_params + t.embedding_params;
  const auto kv = kv_cache(spec);
  t.kv_cache_bytes_per_token = kv.bytes_per_token;
  t.state_bytes_per_sequence = kv.state_bytes_per_sequence;
  return t;
}

}  // namespace k3::model
