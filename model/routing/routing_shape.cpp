#include "model/routing/routing_shape.hpp"

#include <fmt/format.h>

namespace k3::routing {

void validate(const MoeRoutingShape& shape, const std::string& source) {
  if (shape.experts < 1)
    throw core::InputError({source, "experts", 0}, fmt::format("{} routed experts", shape.experts), ">= 1");
  if (shape.top_k < 1 || shape.top_k > shape.experts)
    throw core::InputError({source, "top_k", 0},
                           fmt::format("top-{} of {} experts (k > n or k < 1)", shape.top_k, shape.experts),
                           fmt::format("1 <= k <= {}", shape.experts));
  if (shape.dispatch_width < 1)
    throw core::InputError({source, "dispatch_width", 0}, fmt::format("width {} elements", shape.dispatch_width),
                           ">= 1");
  if (shape.moe_layers < 0)
    throw core::InputError({source, "moe_layers", 0}, fmt::format("{} MoE layers", shape.moe_layers), ">= 0");
}

}  // namespace k3::routing
