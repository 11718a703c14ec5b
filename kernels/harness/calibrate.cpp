#include "kernels/harness/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/error.hpp"

namespace k3::kernels {

using nlohmann::json;

std::vector<std::string> calibration_ops(const Backend& backend) { return backend.available_ops(); }

json to_json(const OpRun& run) {
  const double s = run.timing.median_s;
  return {{"op", run.op},
          {"op_class", run.op_class},
          {"peak", run.peak},
          {"work_unit", cost::to_string(run.unit)},
          {"shape", run.shape},
          {"flops", run.flops},
          {"bytes", run.bytes},
          {"median_s", s},
          {"p10_s", run.timing.p10_s},
          {"p90_s", run.timing.p90_s},
          {"samples_s", run.timing.samples_s},
          {"achieved_flops_per_s", s > 0 ? run.flops / s : 0.0},
          {"achieved_bytes_per_s", s > 0 ? run.bytes / s : 0.0},
          {"validation", run.validation}};
}

OpRun op_run_from_json(const json& j) {
  OpRun r;
  r.op = j.at("op").get<std::string>();
  r.op_class = j.at("op_class").get<std::string>();
  r.peak = j.at("peak").get<std::string>();
  r.unit = j.at("work_unit").get<std::string>() == cost::to_string(cost::WorkUnit::kFlops) ? cost::WorkUnit::kFlops
                                                                                            : cost::WorkUnit::kBytes;
  r.shape = j.at("shape");
  r.flops = j.at("flops").get<double>();
  r.bytes = j.at("bytes").get<double>();
  r.timing.median_s = j.at("median_s").get<double>();
  r.timing.p10_s = j.at("p10_s").get<double>();
  r.timing.p90_s = j.at("p90_s").get<double>();
  r.timing.samples_s = j.at("samples_s").get<std::vector<double>>();
  r.validation = j.at("validation").get<std::string>();
  return r;
}

cost::CalibrationProfile merge_profiles(const std::vector<std::string>& paths) {
  K3SIM_ASSERT(!paths.empty(), "merge_profiles: no profile given");
  std::vector<OpRun> runs;
  cost::DeviceIdentity device;
  std::string created;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto part = cost::CalibrationProfile::load(paths[i]);
    if (i == 0) {
      device = part.device();
      created = part.created_utc();
    } else if (part.device().name != device.name || part.device().backend != device.backend) {
      throw core::InputError({paths[i], "device.name", 0},
                             fmt::format("measured on {} ({}), not on {} ({}) like {}", part.device().name,
                                         part.device().backend, device.name, device.backend, paths[0]),
                             "profiles of one device");
    }
    for (const auto& m : part.measurements()) {
      try {
        runs.push_back(op_run_from_json(m));
      } catch (const json::exception& e) {
        throw core::InputError({paths[i], "measurements", 0}, std::string("a run is malformed: ") + e.what(),
                               "runs as k3sim calibrate writes them");
      }
    }
  }
  return build_profile(device, runs, created);
}

cost::CalibrationProfile build_profile(const cost::DeviceIdentity& device, const std::vector<OpRun>& runs,
                                       const std::string& created_utc) {
  cost::CalibrationProfile p;
  p.set_device(device);
  p.set_created_utc(created_utc);
  // HBM peak: the rate of the largest copy (smaller copies can be served by caches, which is not HBM);
  // GEMM peak per dtype: the best rate any probe run achieved.
  double hbm = 0, hbm_probe_bytes = 0;
  std::map<std::string, double> gemm;
  for (const auto& r : runs) {
    K3SIM_ASSERT(r.timing.median_s > 0, "calibration run '" + r.op + "' has no positive time");
    if (r.op == "hbm_copy" && r.bytes > hbm_probe_bytes) {
      hbm_probe_bytes = r.bytes;
      hbm = r.bytes / r.timing.median_s;
    }
    if (r.op == "gemm_peak") {
      const std::string dtype = r.shape.at("dtype").get<std::string>();
      gemm[dtype] = std::max(gemm[dtype], r.flops / r.timing.median_s);
    }
  }
  K3SIM_ASSERT(hbm > 0, "calibration ran no hbm_copy probe");
  K3SIM_ASSERT(!gemm.empty(), "calibration ran no gemm_peak probe");
  p.set_hbm_bytes_per_s(hbm);
  for (const auto& [dtype, v] : gemm) p.set_gemm_flops_per_s(dtype, v);

  // Curves: per class, the median efficiency at each distinct work size.
  std::map<std::string, std::vector<const OpRun*>> by_class;
  for (const auto& r : runs) {
    if (r.op != "gemm_peak" && cost::production_kernel_class(r.op_class)) by_class[r.op_class].push_back(&r);
  }
  json measurements = json::array();
  for (const auto& r : runs) measurements.push_back(to_json(r));
  for (auto& [name, list] : by_class) {
    const OpRun& first = *list.front();
    if (first.peak != "hbm" && !p.has_gemm_peak(first.peak.substr(5))) continue;  // no probe for this dtype
    const double peak = p.peak(first.peak);
    std::map<double, std::vector<double>> by_work;
    for (const OpRun* r : list) {
      K3SIM_ASSERT(r->peak == first.peak && r->unit == first.unit, "op class '" + name + "' mixes peaks or units");
      by_work[r->work()].push_back(r->work() / r->timing.median_s / peak);
    }
    cost::EfficiencyCurve curve;
    curve.unit = first.unit;
    curve.peak = first.peak;
    for (auto& [work, effs] : by_work) {
      if (work > 0) curve.points.push_back({work, percentile(effs, 0.5)});
    }
    if (!curve.points.empty()) p.set_curve(name, std::move(curve));
  }
  p.set_measurements(std::move(measurements));
  return p;
}

cost::CalibrationProfile calibrate(Backend& backend, const std::vector<std::string>& ops, bool quick,
                                   const std::string& created_utc) {
  const auto available = backend.available_ops();
  for (const auto& op : ops) {
    if (std::find(available.begin(), available.end(), op) == available.end()) {
      throw core::InputError({"--ops", "", 0}, "unknown op '" + op + "'", fmt::format("{}", fmt::join(available, ", ")));
    }
  }
  std::vector<OpRun> runs;
  for (const auto& op : available) {
    const bool probe = op == "hbm_copy" || op == "gemm_peak";
    if (!probe && !ops.empty() && std::find(ops.begin(), ops.end(), op) == ops.end()) continue;
    auto op_runs = backend.measure(op, quick);
    runs.insert(runs.end(), std::make_move_iterator(op_runs.begin()), std::make_move_iterator(op_runs.end()));
  }
  return build_profile(backend.identify(), runs, created_utc);
}

}  // namespace k3::kernels
