#pragma once
// The few numbers of a MoE layer that routing, balancing and all-to-all traffic depend on. The CLI maps a
// full ModelSpec onto this; the routing library never needs more.
#include <string>

#include "core/error.hpp"

namespace k3::routing {

struct MoeRoutingShape {
  std::string name;        // e.g. "k3", "k3-448"
  int experts = 0;         // routed experts n
  int top_k = 0;           // experts chosen per token k
  int dispatch_width = 0;  // elements per token copy on the wire: the latent dim when the model has one, else hidden
  int moe_layers = 0;      // layers with routed experts (for per-step totals and ExpertLoad)

  double activation_fraction() const { return static_cast<double>(top_k) / experts; }
};

// Throws InputError (key `key_prefix`.experts / .top_k / ...) when the shape cannot route: k > n, k < 1,
// width < 1.
void validate(const MoeRoutingShape& shape, const std::string& source);

}  // namespace k3::routing
