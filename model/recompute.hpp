#pragma once
// What a training step recomputes in backward instead of keeping from forward.
//
//   none      - every op keeps what its backward needs;
//   selective - the modules below, by name (Megatron-Core's --recompute-modules); the word `selective`
//               alone is Korthikanti et al.'s choice (arXiv:2205.05198): core_attn, norm and activation;
//   full      - only each block's input is kept and the whole block runs forward again.
//
// Each op of model/ops.hpp is tagged with the modules it belongs to (a routed activation is in activation,
// moe_act and moe). A module recomputed drops what its ops keep for backward, except what the op at its
// entry keeps: the module's input, which the recomputation starts from. The MLA up-projection is the
// exception to "its ops": recomputing it re-materialises q, k and v, so the attention core no longer keeps
// them (Megatron-Core's recompute of the up-projection discards its output after the core has run).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace k3::model {

using RecomputeModules = std::uint32_t;  // a set of RecomputeModule bits

enum RecomputeModule : RecomputeModules {
  kRecomputeCoreAttn = 1u << 0,
  kRecomputeNorm = 1u << 1,
  kRecomputeActivation = 1u << 2,
  kRecomputeMoeAct = 1u << 3,
  kRecomputeMlaUpProj = 1u << 4,
  kRecomputeMlp = 1u << 5,
  kRecomputeMoe = 1u << 6,
  kRecomputeSharedExperts = 1u << 7,
};

// Modules recomputed as a region from their input: while one runs again before its backward, everything it
// dropped is live at once (the recomputation working set). The others (core_attn, norm, activation,
// moe_act) re-materialise one op's tensors right before that op's backward, which Korthikanti et al. count
// as no working set.
constexpr RecomputeModules kRecomputeRegions =
    kRecomputeMlaUpProj | kRecomputeMlp | kRecomputeMoe | kRecomputeSharedExperts;

struct RecomputeModuleEntry {
  std::string_view name;
  std::string_view description;
  RecomputeModules bit = 0;
};
// The modules `recompute:` may name, in listing order.
std::span<const RecomputeModuleEntry> recompute_modules();

struct RecomputePolicy {
  bool full = false;
  RecomputeModules modules = 0;  // recomputed modules when not full

  static RecomputePolicy none() { return {}; }
  static RecomputePolicy selective() { return {false, kRecomputeCoreAttn | kRecomputeNorm | kRecomputeActivation}; }
  static RecomputePolicy whole_blocks() { return {true, 0}; }
  bool recomputes_anything() const { return full || modules != 0; }
  bool operator==(const RecomputePolicy&) const = default;
};

// "none", "selective", "full", or the module names joined by '+' ("norm+moe_act").
std::string to_string(const RecomputePolicy& p);
}  // namespace k3::model
