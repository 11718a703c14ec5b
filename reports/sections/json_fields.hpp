#pragma once
// What every report section does with a result's --json object: read a number by key, and show bytes in GiB.
#include <nlohmann/json.hpp>

namespace k3::reports {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

inline double num(const nlohmann::json& j, const char* key) { return j.at(key).get<double>(); }

}  // namespace k3::reports
