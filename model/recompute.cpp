#include "model/recompute.hpp"

#include <array>

#include "core/registry.hpp"

namespace k3::model {

namespace {

// Names follow Megatron-Core's --recompute-modules where it has one (`layernorm` is `norm` here, since
// K3 and its peers use RMSNorm); `activation` is every activation function and elementwise op.
constexpr std::array kModules{
    RecomputeModuleEntry{"core_attn", "attention core (softmax attention scores and output)", kRecomputeCoreAttn},
    RecomputeModuleEntry{"norm", "every RMSNorm / LayerNorm", kRecomputeNorm},
    RecomputeModuleEntry{"activation", "activation functions, gates, RoPE and the other elementwise ops",
                         kRecomputeActivation},
    RecomputeModuleEntry{"moe_act", "the routed and shared experts' activation functions", kRecomputeMoeAct},
    RecomputeModuleEntry{"mla_up_proj", "MLA's query and key-value up-projections (q, k, v re-materialised)",
                         kRecomputeMlaUpProj},
    RecomputeModuleEntry{"mlp", "a dense layer's MLP from its input", kRecomputeMlp},
    RecomputeModuleEntry{"moe", "the whole MoE layer from its input, dispatch and combine included", kRecomputeMoe},
    RecomputeModuleEntry{"shared_experts", "the shared experts from their input", kRecomputeSharedExperts},
};

}  // namespace

std::span<const RecomputeModuleEntry> recompute_modules() { return kModules; }

std::string to_string(const RecomputePolicy& p) {
  if (p.full) return "full";
  if (p.modules == 0) return "none";
  if (p == RecomputePolicy::selective()) return "selective";
  std::string out;
  for (const auto& m : kModules) {
    if ((p.modules & m.bit) == 0) continue;
    if (!out.empty()) out += '+';
    out += m.name;
  }
  return out;
}

}  // namespace k3::model
