#pragma once
// TEMPORARY: the routing shapes of the two presets, used by `k3sim traffic` and `k3sim balance` until the
// ModelSpec presets (model/model_spec.hpp, branch `model`) are merged; then the CLI maps ModelSpec -> shape
// and this table goes. Figures: ../shared/DESIGN.md "K3 facts" (arXiv:2607.24653 and the seeds).
#include <string>
#include <vector>

#include "model/routing/routing_shape.hpp"

namespace k3::routing {

// "k3": 896 routed experts, top-16, LatentMoE latent 3584, 92 MoE layers (93 layers, layer 1 dense).
// "k3-448": the iso-cost alternative, 448 experts top-8 at the full hidden 7168, same layers.
// InputError naming `flag` for any other name.
MoeRoutingShape known_routing_shape(const std::string& name, const std::string& flag);
std::vector<std::string> known_routing_shape_names();

}  // namespace k3::routing
