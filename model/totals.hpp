#pragma once
// Whole-model totals derived from the op list: parameters (total, activated), training FLOPs per token,
// and per-layer-kind breakdown. JSON names used by `k3sim model --json` mirror these field names.
//
// Counting conventions (each matches a publisher; see tests/model for the checks):
// - total_params: every weight of the main model; multi-token-prediction (MTP) blocks are added only when
//   the publisher's headline figure includes them (PublishedCounts::count_includes_mtp). DeepSeek-V3's
//   671B excludes its 14B MTP module (arXiv:2412.19437 sec. 4.2), K3's 2.78T matches the 93 layers alone.
// - activated_params: weights one token uses, excluding the input embedding table (a lookup, not compute)
//   and including the LM head: K3's 104.2B comes out this way (105.3B with the table).
// - training_flops_per_token: model FLOPs (GEMMs, router, attention core, KDA scan) of forward + backward,
//   main model without MTP, causal attention, no recomputation. This is DeepSeek's convention
//   ("6 x activated matmul parameters + attention" per token): DeepSeek-V3 at seq 4096 gives 250 GFLOPs
//   (ISCA'25 "Insights into DeepSeek-V3", Table 2); the non-causal variant counts the full score matrix.
#include <string>
#include <vector>

#include "model/model_spec.hpp"
#include "model/ops.hpp"
#include "core/units.hpp"

namespace k3::model {

struct LayerKindTotals {
  std::string kind;  // "KDA+MoE", "MLA+dense", "embedding", "lm_head", "mtp"
  int count = 0;
  double params = 0;            // all layers of this kind
  double activated_params = 0;  // all layers of this kind, per token
  core::Flops fwd_flops_per_token = 0;
  core::Flops flops = 0;        // training (fwd + bwd) model FLOPs per token, all layers of this kind
  core::Flops routed_flops_per_token = 0;  // training FLOPs of routed experts, all layers of this kind
};

struct ModelTotals {
  double total_params = 0;  // publisher's convention (see above)
  double total_params_without_mtp = 0;
  double mtp_params = 0;
  double embedding_params = 0;
  double activated_params = 0;
  double activated_params_with_embedding = 0;
  double seq = 0;
  core::Flops training_flops_per_token = 0;            // causal
  core::Flops training_flops_per_token_noncausal = 0;
  core::Flops forward_flops_per_token = 0;             // causal
  core::Flops mtp_training_flops_per_token = 0;        // MTP blocks, causal
  core::Flops elementwise_flops_per_token = 0;         // norms, activations etc., fwd + bwd (not model FLOPs)
  core::Flops routed_flops_per_token = 0;              // training FLOPs of routed experts (main model)
  double dispatch_elements_per_token = 0;              // per MoE layer: top-k x expert width (before dedup)
  core::Bytes kv_cache_bytes_per_token = 0;
  core::Bytes state_bytes_per_sequence = 0;
  std::vector<LayerKindTotals> layers;                 // layer kinds in first-appearance order, then the rest
};

// Totals for sequences of length `seq` (tokens).
ModelTotals summarize(const ModelSpec& spec, double seq);

// Sums over one block's ops.
double block_params(const OpBlock& b);
double block_activated_params(const OpBlock& b);
core::Flops block_training_flops(const OpBlock& b);  // model FLOPs, fwd + dgrad + wgrad

}  // namespace k3::model
