#include "sim/serve/kv_capacity.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/yaml_input.hpp"
#include "model/ops.hpp"

namespace k3::serve {

core::Bytes RankKvCapacity::sequence_bytes(double tokens) const {
  auto paged = [&](double t) { return std::ceil(t / page_tokens) * page_tokens; };
  core::Bytes b = paged(tokens) * cache_bytes_per_token_per_gpu + state_bytes_per_sequence_per_gpu;
  for (const auto& l : bounded_per_gpu) b += paged(std::min(tokens, l.max_tokens)) * l.bytes_per_token;
  return b;
}

namespace {

// What would free HBM, leaving out what the scenario already does (issue 49: never suggest a setting it has).
std::string memory_remedies(const KvCapacityOptions& o) {
  std::vector<std::string> r{"more nodes per instance"};
  if (o.weight_bytes_per_param > 1) r.push_back("FP8 weights (precision.weights: fp8)");
  if (o.instance.attention_dp > 1) r.push_back("attention TP (a smaller attention_dp)");
  if (o.prefill && o.instance.pp == 1) r.push_back("pipeline stages (deployment.prefill.pp)");
  if (o.instance.weight_offload_bytes_per_gpu <= 0) r.push_back("weights in host memory (weight_offload_gb)");
  if (o.reserve_fraction > 0) r.push_back("a smaller scheduler.memory_reserve_fraction");
  return core::join_allowed(r);
}

}  // namespace

KvCapacityOptions kv_capacity_options(const ServeSpec& spec, const InstanceSpec& is, bool prefill_instance, int gpus,
                                      core::Bytes hbm_bytes_per_gpu, bool mtp_loaded) {
  KvCapacityOptions o;
  o.instance = is;
  o.gpus = gpus;
  o.hbm_bytes_per_gpu = hbm_bytes_per_gpu;
  o.weight_bytes_per_param = spec.weight_bytes_per_param;
  o.reserve_fraction = spec.scheduler.memory_reserve_fraction;
  o.page_tokens = spec.scheduler.page_tokens;
  o.mtp_loaded = mtp_loaded;
  o.kv_cache_bytes_per_element = spec.kv_cache_bytes_per_element;
  o.prefill = prefill_instance && spec.deployment.kind == DeploymentKind::disaggregated;
  return o;
}

RankKvCapacity rank_kv_capacity(const model::ModelSpec& spec, const KvCapacityOptions& o,
                                const core::InputLocation& where) {
  // With pp stages each GPU holds its stage's layers: 1/pp of the weights and of every cache and state (the layers
  // split evenly; the embedding and head are counted as spread too).
  const double pp = std::max(1, o.instance.pp);
  const int stage_gpus = std::max(1, o.gpus / static_cast<int>(pp));
  const int tp = std::max(1, stage_gpus / std::max(1, o.instance.attention_dp));
  model::MicroBatch mb;
  mb.seq = 1;
  double replicated = 0, routed = 0;
  for (const auto& b : model::build_ops(spec, mb)) {
    if (b.role == model::BlockRole::Mtp && !o.mtp_loaded) continue;
    for (const auto& op : b.ops) (op.routed ? routed : replicated) += op.params;
  }
  const double experts = std::max(1, spec.moe.routed_experts);
  const double routed_copies = routed * (experts + o.instance.redundant_experts) / experts;
  RankKvCapacity c;
  c.page_tokens = o.page_tokens;
  c.hbm_bytes_per_gpu = o.hbm_bytes_per_gpu;
  const core::Bytes weights = (replicated / tp + routed_copies / stage_gpus) / pp * o.weight_bytes_per_param;
  c.offloaded_bytes_per_gpu = o.instance.weight_offload_bytes_per_gpu;
  if (c.offloaded_bytes_per_gpu > weights)
    throw core::InputError(where,
                           fmt::format("weight_offload_gb {:.1f} GB is more than the {:.1f} GB of weights a GPU holds",
                                       c.offloaded_bytes_per_gpu / 1e9, weights / 1e9),
                           fmt::format("at most {:.1f}", weights / 1e9));
  c.weight_bytes_per_gpu = weights - c.offloaded_bytes_per_gpu;
  c.reserve_bytes_per_gpu = o.reserve_fraction * o.hbm_bytes_per_gpu;
  c.free_bytes_per_gpu = o.hbm_bytes_per_gpu - c.weight_bytes_per_gpu - c.reserve_bytes_per_gpu;
  if (c.free_bytes_per_gpu <= 0)
    throw core::InputError(where,
                           fmt::format("the weights take {:.1f} GB of each GPU's {:.1f} GB and the reserve {:.1f} GB: "
                                       "nothing is left for the KV cache",
                                       c.weight_bytes_per_gpu / 1e9, o.hbm_bytes_per_gpu / 1e9,
                                       c.reserve_bytes_per_gpu / 1e9),
                           memory_remedies(o));
  const model::KvCache kv = model::kv_cache(spec, o.kv_cache_bytes_per_element);
  const bool mla_cache = spec.count_layers(model::AttentionKind::MLA) > 0;
  const double cache_split = (mla_cache ? 1 : tp) * pp;
  c.cache_bytes_per_token_per_gpu = kv.bytes_per_token / cache_split;
  c.state_bytes_per_sequence_per_gpu =
      (kv.recurrent_state_bytes_per_sequence + kv.conv_state_bytes_per_sequence) / (tp * pp);
  for (const auto& l : kv.bounded) c.bounded_per_gpu.push_back({l.bytes_per_token / cache_split, l.max_tokens});
  c.pages = c.free_bytes_per_gpu / (c.page_tokens * std::max(1.0, c.cache_bytes_per_token_per_gpu));
  return c;
}

}  // namespace k3::serve
