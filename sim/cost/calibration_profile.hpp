#pragma once
// A calibration profile: what `k3sim calibrate` measured on one machine, in the form the cost model reads.
//
// It holds the device identity, the measured peaks (HBM copy bandwidth, GEMM FLOP/s per dtype) and, per op
// class ("gemm_bf16", "grouped_gemm_bf16", "attention", "kda", "elementwise", "norm", ...), an efficiency
// curve: the achieved fraction of the relevant peak as a function of the work per launch (FLOPs for
// compute-bound classes, bytes for memory-bound ones). Between measured points the curve is interpolated
// linearly in log(work); outside them it is clamped to the end points, so a launch bigger than any measured
// one gets the largest measured launch's efficiency (never an extrapolated one).
//
// Every raw measurement is kept (measurements(), collectives()) so that a profile can be diffed and audited.
// A profile measured by the cpu backend describes the CPU that ran the references: its peaks are the CPU's,
// and measured_on_gpu() is false so that the cost model uses it only when told to.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace k3::cost {

struct DeviceIdentity {
  std::string backend;             // "cuda" or "cpu"
  std::string name;                // GPU or CPU model name
  std::string driver;              // driver version ("" for the cpu backend)
  std::string runtime;             // CUDA runtime / compiler version
  std::string compute_capability;  // "9.0"; "" for the cpu backend
  double sm_clock_mhz = 0;         // 0 when unknown
  double memory_clock_mhz = 0;     // 0 when unknown
  double memory_bytes = 0;         // device (or host) memory, bytes
  int device_count = 1;            // devices visible to the calibration run
};

enum class WorkUnit { kFlops, kBytes };

struct EfficiencyPoint {
  double work = 0;        // FLOPs or bytes per launch (see the curve's unit)
  double efficiency = 0;  // achieved rate / peak; may exceed 1 for cache-resident launches
};

// Efficiency at `work` on points of strictly increasing work: linear in log(work) between points, clamped to
// the end points outside them. Precondition: at least one point.
double interpolate_log_work(const std::vector<EfficiencyPoint>& points, double work);

struct EfficiencyCurve {
  WorkUnit unit = WorkUnit::kFlops;
  std::string peak;                     // "hbm" or "gemm_<dtype>" (a key of the profile's peaks)
  std::vector<EfficiencyPoint> points;  // strictly increasing work
};

class CalibrationProfile {
 public:
  static constexpr std::string_view kFormat = "k3sim-calibration-profile";
  static constexpr int kVersion = 1;

  // Throws core::InputError naming the file and the key on a missing file, bad JSON or a bad value.
  static CalibrationProfile load(const std::string& path);
  static CalibrationProfile from_json(const nlohmann::json& j, const std::string& source_name);
  nlohmann::json to_json() const;
  void save(const std::string& path) const;  // InputError when the file cannot be written

  const DeviceIdentity& device() const { return device_; }
  bool measured_on_gpu() const { return device_.backend == "cuda"; }
  const std::string& created_utc() const { return created_utc_; }

  double hbm_bytes_per_s() const { return hbm_bytes_per_s_; }
  bool has_gemm_peak(std::string_view dtype) const;
  double gemm_flops_per_s(std::string_view dtype) const;  // InputError when the dtype was not measured
  // The peak a curve refers to: hbm_bytes_per_s() for "hbm", gemm_flops_per_s(dtype) for "gemm_<dtype>".
  double peak(std::string_view peak_name) const;

  bool has(std::string_view op_class) const;
  std::vector<std::string> op_classes() const;
  const EfficiencyCurve& curve(std::string_view op_class) const;  // InputError when absent
  // Achieved fraction of the class's peak at `work` (FLOPs or bytes per launch). Work <= 0 reads the
  // smallest measured point.
  double efficiency(std::string_view op_class, double work) const;
  // efficiency * peak: FLOP/s for a FLOP-counted class, bytes/s for a byte-counted one.
  double achieved_rate(std::string_view op_class, double work) const;

  const nlohmann::json& measurements() const { return measurements_; }
  const nlohmann::json& collectives() const { return collectives_; }

  // Building a profile (the calibration harness).
  void set_device(DeviceIdentity d) { device_ = std::move(d); }
  void set_created_utc(std::string t) { created_utc_ = std::move(t); }
  void set_hbm_bytes_per_s(double v);
  void set_gemm_flops_per_s(const std::string& dtype, double v);
  void set_curve(const std::string& op_class, EfficiencyCurve c);
  void set_measurements(nlohmann::json m) { measurements_ = std::move(m); }
  void set_collectives(nlohmann::json c) { collectives_ = std::move(c); }

 private:
  std::string source_ = "<profile>";
  DeviceIdentity device_;
  std::string created_utc_;
  double hbm_bytes_per_s_ = 0;
  std::map<std::string, double, std::less<>> gemm_flops_per_s_;
  std::map<std::string, EfficiencyCurve, std::less<>> curves_;
  nlohmann::json measurements_ = nlohmann::json::array();
  nlohmann::json collectives_ = nlohmann::json::array();
};

std::string_view to_string(WorkUnit u);

// Whether a profile's curve for `op_class` measures the algorithm production training uses. The harness's
// attention kernel has no tiling or online softmax and its KDA kernel is the sequential recurrent scan
// credited with chunked FLOPs: 10-35x slower than FlashAttention and the chunked delta rule, so "attention"
// and "kda" are left out of profiles (the raw timings stay in measurements()) and ignored when present.
bool production_kernel_class(std::string_view op_class);

// Whether `profile` was measured on a GPU of the type called `gpu_type` (a catalogue name such as
// "H200-SXM"): a CUDA profile whose device name holds the type's family ("H200") as a word. A CPU profile
// tests the calibration path and never matches. core::InputError naming the profile file, both devices
// and the override flag otherwise.
void check_profile_device(const CalibrationProfile& profile, const std::string& gpu_type, const std::string& path);

}  // namespace k3::cost
