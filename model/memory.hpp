#pragma once
// Training memory: bytes of weights, gradients and optimizer state per parameter, and activation bytes
// kept for backward per micro-batch under three recomputation policies.
//
// Optimizer state (dtypes configurable through OptimizerBytes):
//   AdamW: fp32 master copy + first and second moments (4 + 4 + 4 B) on top of BF16 weights and fp32 grads.
//   Muon (Moonlight): one fp32 momentum for hidden weight matrices; embedding, LM head, norms and other
//   vectors stay on AdamW (two moments), as in Moonlight and K2.
// Activations (ops saved_bytes):
//   none      - every op keeps what its backward needs;
//   selective - norms, activations, rope and the attention core are recomputed (Korthikanti et al. 2022);
//   full      - only each block's input is kept; one block's full set is live again while it recomputes.
//   The extra forward work this costs is recompute_flops(). The recomputation working set is needed once
//   per GPU (one block recomputes at a time), not once per micro-batch kept in flight.
#include <string>
#include <vector>

#include "model/ops.hpp"
#include "core/units.hpp"

namespace k3::model {

enum class Optimizer { AdamW, Muon };
enum class Recompute { None, Selective, Full };
const char* to_string(Optimizer o);
const char* to_string(Recompute r);

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
  core::Bytes recompute_peak = 0;  // the largest block's full set while it recomputes (full policy only)
  core::Bytes total() const { return kept + recompute_peak; }
};
ActivationBytes activation_memory(const std::vector<OpBlock>& blocks, Recompute policy);
// Peak activation bytes of one micro-batch alone: activation_memory(...).total().
core::Bytes activation_bytes(const std::vector<OpBlock>& blocks, Recompute policy);
// Extra forward FLOPs the policy adds (model and elementwise FLOPs of what is recomputed).
core::Flops recompute_flops(const std::vector<OpBlock>& blocks, Recompute policy);

}  // namespace k3::model
