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

}  // namespace k3::results
