#pragma once
// HTML reports of `k3sim compare` and `k3sim sweep`, built from the same JSON their --json output prints.
#include <nlohmann/json.hpp>

#include <string>

namespace k3::reports {

// `comparison` is compare's --json output; `sweep` is sweep's JSON output.
void write_compare_report(const std::string& path, const nlohmann::json& comparison, const std::string& command);
void write_sweep_report(const std::string& path, const nlohmann::json& sweep, const std::string& command);

}  // namespace k3::reports
