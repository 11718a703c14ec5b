#pragma once
// Adapter from the full model description (model/model_spec.hpp) to the few numbers routing needs. Kept in
// its own small library (k3sim_routing_model) so that k3sim_routing itself never depends on ModelSpec.
#include <string>

#include "model/model_spec.hpp"
#include "model/routing/routing_shape.hpp"

namespace k3::routing {

// experts / top-k from the MoE spec; dispatch width = the latent dim when the model has one, else hidden;
// moe_layers = layers with a routed-expert FFN. InputError naming `flag` when the model has no routed experts.
MoeRoutingShape routing_shape_of(const model::ModelSpec& spec, const std::string& flag);
// load_model(name_or_path) then routing_shape_of.
MoeRoutingShape load_routing_shape(const std::string& name_or_path, const std::string& flag);

}  // namespace k3::routing
