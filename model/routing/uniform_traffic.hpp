#pragma once
// All-to-all traffic of uniformly routed tokens: every token's scores are i.i.d. uniform, so plain top-k picks
// a uniform k-subset of experts (the case the closed form G (1 - C(n - n/G, k) / C(n, k)) describes), and
// node-limited routing applies DeepSeek-V3's rule to the same scores.
#include <cstdint>

#include "model/routing/placement.hpp"
#include "model/routing/routing_shape.hpp"
#include "model/routing/traffic.hpp"

namespace k3::routing {

struct UniformTrafficConfig {
  MoeRoutingShape shape;
  PlacementSpec placement;
  TrafficSpec traffic;      // width is taken from shape.dispatch_width when 0
  int tokens_per_gpu = 512;
  int node_limit = 0;       // M; 0 = no node limit
  std::uint64_t seed = 1;
};

// InputError for tokens < 1, a bad placement or node limit (M > nodes).
TrafficResult uniform_traffic(const UniformTrafficConfig& cfg);

}  // namespace k3::routing
