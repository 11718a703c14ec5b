#include "sim/cost/calibration_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/json_reader.hpp"
#include "core/text_file.hpp"

namespace k3::cost {

using core::InputError;
using nlohmann::json;

std::string_view to_string(WorkUnit u) { return u == WorkUnit::kFlops ? "flops" : "bytes"; }

namespace {

using Reader = core::JsonReader;

DeviceIdentity read_device(const Reader& r) {
  DeviceIdentity d;
  d.backend = r.str("backend");
  if (d.backend != "cuda" && d.backend != "cpu") r.fail("backend", "unknown backend '" + d.backend + "'", "cuda, cpu");
  d.name = r.str("name");
  d.driver = r.str("driver");
  d.runtime = r.str("runtime");
  d.compute_capability = r.str("compute_capability");
  d.sm_clock_mhz = r.non_negative("sm_clock_mhz");
  d.memory_clock_mhz = r.non_negative("memory_clock_mhz");
  d.memory_bytes = r.non_negative("memory_bytes");
  const double count = r.positive("device_count");
  if (count != std::floor(count)) r.fail("device_count", "must be a whole number");
  d.device_count = static_cast<int>(count);
  return d;
}

json write_device(const DeviceIdentity& d) {
  return {{"backend", d.backend},           {"name", d.name},
          {"driver", d.driver},             {"runtime", d.runtime},
          {"compute_capability", d.compute_capability}, {"sm_clock_mhz", d.sm_clock_mhz},
          {"memory_clock_mhz", d.memory_clock_mhz},     {"memory_bytes", d.memory_bytes},
          {"device_count", d.device_count}};
}

}  // namespace

CalibrationProfile CalibrationProfile::from_json(const json& j, const std::string& source_name) {
  CalibrationProfile p;
  p.source_ = source_name;
  const Reader top(p.source_, j, "");
  if (top.str("format") != kFormat) top.fail("format", "not a calibration profile", std::string(kFormat));
  if (top.number("version") != kVersion) top.fail("version", "unsupported version", std::to_string(kVersion));
  p.created_utc_ = top.str("created_utc");
  p.device_ = read_device(top.child("device"));

  const Reader peaks = top.child("peaks");
  p.hbm_bytes_per_s_ = peaks.positive("hbm_bytes_per_s");
  const Reader gemm = peaks.child("gemm_flops_per_s");
  for (const auto& [dtype, v] : gemm.raw().items()) p.gemm_flops_per_s_[dtype] = gemm.positive(dtype);
  if (p.gemm_flops_per_s_.empty()) peaks.fail("gemm_flops_per_s", "needs at least one dtype", "bf16, fp8, fp32");

  const Reader classes = top.child("op_classes");
  for (const auto& [name, _] : classes.raw().items()) {
    const Reader c = classes.child(name);
    EfficiencyCurve curve;
    const std::string unit = c.str("work_unit");
    if (unit == "flops") {
      curve.unit = WorkUnit::kFlops;
    } else if (unit == "bytes") {
      curve.unit = WorkUnit::kBytes;
    } else {
      c.fail("work_unit", "unknown unit '" + unit + "'", "flops, bytes");
    }
    curve.peak = c.str("peak");
    const bool known_peak = curve.peak == "hbm" || (curve.peak.rfind("gemm_", 0) == 0 &&
                                                    p.gemm_flops_per_s_.count(curve.peak.substr(5)) > 0);
    if (!known_peak) c.fail("peak", "names no measured peak: '" + curve.peak + "'", "hbm, gemm_<measured dtype>");
    const json& pts = c.at("points");
    if (!pts.is_array() || pts.empty()) c.fail("points", "expected a non-empty array of {work, efficiency}");
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const Reader pt(p.source_, pts[i], c.key(fmt::format("points[{}]", i)));
      EfficiencyPoint e{pt.positive("work"), pt.positive("efficiency")};
      if (!curve.points.empty() && e.work <= curve.points.back().work) pt.fail("work", "points must have strictly increasing work");
      curve.points.push_back(e);
    }
    p.curves_[name] = std::move(curve);
  }
  const json& m = top.at("measurements");
  if (!m.is_array()) top.fail("measurements", "expected an array");
  p.measurements_ = m;
  const json& coll = top.at("collectives");
  if (!coll.is_array()) top.fail("collectives", "expected an array");
  p.collectives_ = coll;
  return p;
}

CalibrationProfile CalibrationProfile::load(const std::string& path) {
  return from_json(core::read_json_file(path, "a calibration profile JSON written by `k3sim calibrate`"), path);
}

json CalibrationProfile::to_json() const {
  json gemm = json::object();
  for (const auto& [dtype, v] : gemm_flops_per_s_) gemm[dtype] = v;
  json classes = json::object();
  for (const auto& [name, c] : curves_) {
    json pts = json::array();
    for (const auto& pt : c.points) pts.push_back({{"work", pt.work}, {"efficiency", pt.efficiency}});
    classes[name] = {{"work_unit", to_string(c.unit)}, {"peak", c.peak}, {"points", pts}};
  }
  return {{"format", kFormat},
          {"version", kVersion},
          {"created_utc", created_utc_},
          {"device", write_device(device_)},
          {"peaks", {{"hbm_bytes_per_s", hbm_bytes_per_s_}, {"gemm_flops_per_s", gemm}}},
          {"op_classes", classes},
          {"measurements", measurements_},
          {"collectives", collectives_}};
}

void CalibrationProfile::save(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw InputError({path, "", 0}, "cannot write calibration profile");
  out << to_json().dump(2) << '\n';
  if (!out) throw InputError({path, "", 0}, "error while writing calibration profile");
}

bool CalibrationProfile::has_gemm_peak(std::string_view dtype) const { return gemm_flops_per_s_.count(dtype) > 0; }

double CalibrationProfile::gemm_flops_per_s(std::string_view dtype) const {
  auto it = gemm_flops_per_s_.find(dtype);
  if (it == gemm_flops_per_s_.end()) {
    throw InputError({source_, "peaks.gemm_flops_per_s." + std::string(dtype), 0}, "this dtype was not measured");
  }
  return it->second;
}

double CalibrationProfile::peak(std::string_view peak_name) const {
  if (peak_name == "hbm") return hbm_bytes_per_s_;
  if (peak_name.substr(0, 5) == "gemm_") return gemm_flops_per_s(peak_name.substr(5));
  throw InputError({source_, "peaks", 0}, "unknown peak '" + std::string(peak_name) + "'", "hbm, gemm_<dtype>");
}

bool CalibrationProfile::has(std::string_view op_class) const { return curves_.count(op_class) > 0; }

std::vector<std::string> CalibrationProfile::op_classes() const {
  std::vector<std::string> names;
  for (const auto& [name, _] : curves_) names.push_back(name);
  return names;
}

const EfficiencyCurve& CalibrationProfile::curve(std::string_view op_class) const {
  auto it = curves_.find(op_class);
  if (it == curves_.end()) {
    throw InputError({source_, "op_classes." + std::string(op_class), 0}, "op class not in this profile");
  }
  return it->second;
}

double CalibrationProfile::efficiency(std::string_view op_class, double work) const {
  K3SIM_ASSERT(!std::isnan(work), "efficiency() asked for NaN work");
  return interpolate_log_work(curve(op_class).points, work);
}

double interpolate_log_work(const std::vector<EfficiencyPoint>& pts, double work) {
  K3SIM_ASSERT(!pts.empty(), "an efficiency curve needs at least one point");
  if (work <= pts.front().work) return pts.front().efficiency;
  if (work >= pts.back().work) return pts.back().efficiency;
  // First point with work > `work`; its predecessor has work <= `work`.
  auto hi = std::upper_bound(pts.begin(), pts.end(), work,
                             [](double w, const EfficiencyPoint& p) { return w < p.work; });
  auto lo = hi - 1;
  const double t = std::log(work / lo->work) / std::log(hi->work / lo->work);
  return lo->efficiency + t * (hi->efficiency - lo->efficiency);
}

double CalibrationProfile::achieved_rate(std::string_view op_class, double work) const {
  return efficiency(op_class, work) * peak(curve(op_class).peak);
}

void CalibrationProfile::set_hbm_bytes_per_s(double v) {
  K3SIM_ASSERT(v > 0 && std::isfinite(v), "HBM bandwidth must be positive");
  hbm_bytes_per_s_ = v;
}

void CalibrationProfile::set_gemm_flops_per_s(const std::string& dtype, double v) {
  K3SIM_ASSERT(v > 0 && std::isfinite(v), "GEMM peak must be positive");
  gemm_flops_per_s_[dtype] = v;
}

void CalibrationProfile::set_curve(const std::string& op_class, EfficiencyCurve c) {
  K3SIM_ASSERT(!c.points.empty(), "an efficiency curve needs points");
  for (std::size_t i = 1; i < c.points.size(); ++i) {
    K3SIM_ASSERT(c.points[i].work > c.points[i - 1].work, "curve points must have increasing work");
  }
  curves_[op_class] = std::move(c);
}

bool production_kernel_class(std::string_view op_class) { return op_class != "attention" && op_class != "kda"; }

void check_profile_device(const CalibrationProfile& profile, const std::string& gpu_type, const std::string& path) {
  const std::string family = gpu_type.substr(0, gpu_type.find('-'));
  const std::string& name = profile.device().name;
  bool match = false;
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (auto at = name.find(family); !family.empty() && at != std::string::npos; at = name.find(family, at + 1)) {
    const bool starts = at == 0 || !word(name[at - 1]);
    const bool ends = at + family.size() == name.size() || !word(name[at + family.size()]);
    match = match || (starts && ends);
  }
  if (profile.measured_on_gpu() && match) return;
  throw core::InputError({path, "device.name", 0},
                         "profile measured on '" + name + "' (" + profile.device().backend +
                             " backend) cannot price a run on " + gpu_type,
                         "a profile measured by the cuda backend on an " + family +
                             " GPU, or --profile-any-device to use this one anyway");
}

}  // namespace k3::cost
