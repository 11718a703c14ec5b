#include "model/routing/known_shapes.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace k3::routing {

MoeRoutingShape known_routing_shape(const std::string& name, const std::string& flag) {
  // DESIGN.md K3 facts: hidden 7168, 896 routed top-16 in latent 3584; 93 layers with layer 1 dense.
  if (name == "k3") return {"k3", 896, 16, 3584, 92};
  // DESIGN.md: "top-8-of-448 experts of FFN 3072 working at the full 7168 hidden size (no latent projections)".
  if (name == "k3-448") return {"k3-448", 448, 8, 7168, 92};
  throw core::InputError({flag, "", 0}, fmt::format("unknown model '{}'", name), "k3, k3-448");
}

std::vector<std::string> known_routing_shape_names() { return {"k3", "k3-448"}; }

}  // namespace k3::routing
