#pragma once
// HTML report of `k3sim sweep`, built from the same JSON its output prints (`k3sim compare`'s review report
// is review.hpp).
#include <nlohmann/json.hpp>

#include <string>

namespace k3::reports {

// `sweep` is sweep's JSON output.
void write_sweep_report(const std::string& path, const nlohmann::json& sweep, const std::string& command);

}  // namespace k3::reports
