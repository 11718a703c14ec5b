#pragma once
// All-to-all traffic of one model as JSON: the `k3sim traffic --json` contract (one entry of "models") and the
// all-to-all section of the `compare` review, from one writer.
#include <nlohmann/json.hpp>

#include "model/routing/traffic.hpp"
#include "model/routing/uniform_traffic.hpp"

namespace k3::results {

// Bytes per token per link class (dispatch, combine, both), dedup factors, distinct GPUs and nodes per token
// (sampled and closed form), the per-GPU spread; with `matrix` the GPU x GPU dispatch and combine matrices.
nlohmann::json traffic_to_json(const routing::UniformTrafficConfig& cfg, const routing::TrafficResult& r, bool matrix);
nlohmann::json link_bytes_json(const routing::LinkClassBytes& b);

}  // namespace k3::results
