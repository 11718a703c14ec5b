#pragma once
// The calibration pipeline: run the probes (HBM copy, peak GEMM) and the requested operators on a backend,
// then turn the timings into a profile: peaks from the probes, one efficiency curve per op class (the
// median achieved fraction of the class's peak at each distinct work size), and every raw run.
#include <string>
#include <vector>

#include "kernels/harness/backend.hpp"
#include "sim/cost/calibration_profile.hpp"

namespace k3::kernels {

// Every op name `calibrate` accepts in --ops on this backend (probes always run).
std::vector<std::string> calibration_ops(const Backend& backend);

// `ops` empty: all. Unknown names -> core::InputError naming "--ops".
cost::CalibrationProfile calibrate(Backend& backend, const std::vector<std::string>& ops, bool quick,
                                   const std::string& created_utc);

// Turns runs into the profile's curves and peaks (exposed for tests).
cost::CalibrationProfile build_profile(const cost::DeviceIdentity& device, const std::vector<OpRun>& runs,
                                       const std::string& created_utc);

nlohmann::json to_json(const OpRun& run);
OpRun op_run_from_json(const nlohmann::json& j);  // the inverse of to_json (its derived rates are dropped)

// One profile from several calibrations of the same device (a GPU session that calibrates op by op, so
// that an op that fails or runs out of time costs only itself): every run of every part, the peaks and
// curves rebuilt from them, the first part's device and date. core::InputError naming the file when the
// parts were measured on different devices or backends.
cost::CalibrationProfile merge_profiles(const std::vector<std::string>& paths);

}  // namespace k3::kernels
