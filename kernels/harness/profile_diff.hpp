#pragma once
// What changed between two calibration profiles: device, peaks, and each op class's efficiency at the
// union of both profiles' measured work sizes (each side read through its interpolated curve).
#include <nlohmann/json.hpp>
#include <string>

#include "sim/cost/calibration_profile.hpp"

namespace k3::kernels {

nlohmann::json diff_profiles(const cost::CalibrationProfile& a, const cost::CalibrationProfile& b);
std::string format_profile_diff(const nlohmann::json& diff);  // a text table, units on every number

}  // namespace k3::kernels
