#pragma once
// A ServeResult as JSON (the `k3sim serve --json` contract) and as a text summary with units; a rate curve
// (`--rates`) as a table.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sim/serve/serve_result.hpp"

namespace k3::results {

nlohmann::json serve_to_json(const serve::ServeResult& r);
std::string serve_to_text(const serve::ServeResult& r);
// One row per simulated arrival rate (requests/s).
std::string serve_curve_to_text(const std::vector<std::pair<double, serve::ServeResult>>& curve);

// Serving results side by side (`k3sim compare` of serving scenarios): one row per metric, each value with its
// change against the first.
nlohmann::json serve_compare_to_json(const std::vector<serve::ServeResult>& results);
std::string serve_compare_to_text(const nlohmann::json& compare);

}  // namespace k3::results
