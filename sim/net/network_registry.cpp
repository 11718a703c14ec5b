#include "sim/net/network_registry.hpp"

#include "core/registry.hpp"
#include "sim/net/analytical_network.hpp"
#include "sim/net/flow_network.hpp"

namespace k3::net {

namespace {
constexpr NetworkModelEntry kNetworkModels[] = {
    {"flow", "flow-level: max-min fair sharing of every link, re-solved as flows start and end (checked against SimGrid)",
     true, make_flow_network},
    {"analytical", "congestion-aware closed form: flows of one instant share each link's load, a flow lands when "
                   "its most loaded link drains; no solver",
     false, make_analytical_network},
};
}  // namespace

std::span<const NetworkModelEntry> network_models() { return kNetworkModels; }

const NetworkModelEntry& default_network_model() { return kNetworkModels[0]; }

const NetworkModelEntry& network_model(std::string_view name, const core::InputLocation& where) {
  return core::entry_named(network_models(), name, where, "network model");
}

}  // namespace k3::net
