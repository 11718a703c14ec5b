#pragma once
// Training memory: bytes of weights, gradients and optimizer state per parameter, and activation bytes
// kept for backward per micro-batch under three recomputation policies.
//
// Optimizer state (dtypes configurable through OptimizerBytes):
//   AdamW: fp32 master copy + first and second moments (4 + 4 + 4 B) on top of BF16 weights and fp32 grads.
//   Muon (Moonlight): one fp32 momentum for hidden weight matrices; embedding, LM head, norms and other
//   vectors stay on AdamW (two moments), as in Moonlight and K2.
// Activations (ops saved_bytes) under a RecomputePolicy (model/recompute.hpp): what a module recomputed as a
// region (kRecomputeRegions) drops is live again while it recomputes in backward, so the largest such set
// of one block is needed once per GPU (one block recomputes at a time), not once per micro-batch kept in
// flight. Under full recomputation that set is the block's whole saved set. The extra forward work is
// recompute_flops().
#include <string>
#include <vector>

#include "model/ops.hpp"
#include "model/recompute.hpp"
#include "core/units.hpp"

namespace k3::model {

enum class Optimizer { AdamW, Muon };
const char* to_string(Optimizer o);

struct OptimizerBytes {
  double weight = 2;    // BF16 working weights
  double gradient = 4;  // fp32 gradient accumulation
  double master = 4;    // fp32 master weights
  double moment = 4;    // fp32 per optimizer moment
};

struct ParamStateBytes {
  core::Bytes weights = 0;
  core::Bytes gradients = 0;
  core::Bytes optimizer = 0;  // master copy + moments
  double params = 0;
  core::Bytes total() const { return weights + gradients + optimizer; }
  double bytes_per_param() const { return params > 0 ? total() / params : 0; }
};

// For all parameters of `blocks` (build_ops output; MTP blocks included when present).
ParamStateBytes param_state_bytes(const std::vector<OpBlock>& blocks, Optimizer opt, const OptimizerBytes& dt = {});

struct ActivationBytes {
  core::Bytes kept = 0;            // held from a micro-batch's forward until its backward
  core::Bytes recompute_peak = 0;  // the largest set one block re-materialises while it recomputes
  core::Bytes total() const { return kept + recompute_peak; }
};
ActivationBytes activation_memory(const std::vector<OpBlock>& blocks, const RecomputePolicy& policy);
// Peak activation bytes of one micro-batch alone: activation_memory(...).total().
core::Bytes activation_bytes(const std::vector<OpBlock>& blocks, const RecomputePolicy& policy);
// Decoder layers and MTP blocks recompute; the embedding and the head keep what they save.
bool recomputable(const OpBlock& b);
// Whether `op` runs again in backward under `policy` (full: every op of a Layer or Mtp block).
bool recomputed(const Op& op, const RecomputePolicy& policy);
// What `op` keeps for backward under `policy` (full recomputation aside: a block-level choice).
core::Bytes kept_bytes(const Op& op, RecomputeModules modules);
// Extra forward FLOPs the policy adds (model and elementwise FLOPs of what is recomputed).
core::Flops recompute_flops(const std::vector<OpBlock>& blocks, const RecomputePolicy& policy);

}  // namespace k3::model
