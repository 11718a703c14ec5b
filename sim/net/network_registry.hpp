#pragma once
// The network models, registered by name with a one-line description (SimGrid's model tables): what
// a scenario's `network` key, `k3sim collective --network` and `k3sim list networks` accept. A new model is
// one file (its NetworkModel and a make function) plus one line in network_registry.cpp.
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/net/network_model.hpp"

namespace k3::net {

struct NetworkModelEntry {
  std::string_view name;
  std::string_view description;
  // Collectives that overlap in time are replayed on one network together, so that they slow each other
  // down. Otherwise each is timed alone (its own flows still share links) and memoised, and overlapping
  // ones do not contend: the analytical model's shortcut, within 3% of the flow model on every shipped
  // scenario's step (tests/train/network_agreement_step_test.cpp).
  bool replays_overlapping_collectives = false;
  std::unique_ptr<NetworkModel> (*make)(engine::Simulator& sim, NetLinks links) = nullptr;
};

// In listing order; the first is the default.
std::span<const NetworkModelEntry> network_models();
const NetworkModelEntry& default_network_model();
// InputError at `where` listing the registered names when `name` is none of them.
const NetworkModelEntry& network_model(std::string_view name, const core::InputLocation& where);

}  // namespace k3::net
