#include "model/routing/model_shape.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace k3::routing {

MoeRoutingShape routing_shape_of(const model::ModelSpec& spec, const std::string& flag) {
  if (!spec.has_moe() || spec.moe.routed_experts < 1)
    throw core::InputError({flag, "", 0}, fmt::format("model '{}' has no routed experts", spec.name),
                           "a MoE model (e.g. k3, k3-448, deepseek-v3)");
  MoeRoutingShape shape;
  shape.name = spec.name;
  shape.experts = spec.moe.routed_experts;
  shape.top_k = spec.moe.experts_per_token;
  shape.dispatch_width = spec.moe.expert_io_dim(spec.hidden);
  shape.moe_layers = spec.count_layers(model::FfnKind::MoE);
  validate(shape, spec.name);
  return shape;
}

MoeRoutingShape load_routing_shape(const std::string& name_or_path, const std::string& flag) {
  return routing_shape_of(model::load_model(name_or_path), flag);
}

}  // namespace k3::routing
