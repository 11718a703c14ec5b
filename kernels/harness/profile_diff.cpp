#include "kernels/harness/profile_diff.hpp"

#include <fmt/format.h>

#include <set>

namespace k3::kernels {

using nlohmann::json;

namespace {

json peak_row(const std::string& name, const std::string& unit, double a, double b) {
  return {{"peak", name}, {"unit", unit}, {"a", a}, {"b", b}, {"ratio_b_over_a", b / a}};
}

}  // namespace

json diff_profiles(const cost::CalibrationProfile& a, const cost::CalibrationProfile& b) {
  json d;
  d["device"] = {{"a", a.device().backend + ": " + a.device().name}, {"b", b.device().backend + ": " + b.device().name}};
  json peaks = json::array();
  peaks.push_back(peak_row("hbm", "bytes/s", a.hbm_bytes_per_s(), b.hbm_bytes_per_s()));
  for (const char* dtype : {"bf16", "fp8", "fp32"}) {
    if (a.has_gemm_peak(dtype) && b.has_gemm_peak(dtype)) {
      peaks.push_back(peak_row(std::string("gemm_") + dtype, "FLOP/s", a.gemm_flops_per_s(dtype), b.gemm_flops_per_s(dtype)));
    }
  }
  d["peaks"] = peaks;
  std::set<std::string> names;
  for (const auto& n : a.op_classes()) names.insert(n);
  for (const auto& n : b.op_classes()) names.insert(n);
  json classes = json::array();
  for (const auto& name : names) {
    json c = {{"op_class", name}};
    if (!a.has(name) || !b.has(name)) {
      c["status"] = a.has(name) ? "only in a" : "only in b";
      classes.push_back(c);
      continue;
    }
    c["status"] = "in both";
    c["work_unit"] = cost::to_string(a.curve(name).unit);
    std::set<double> works;
    for (const auto& p : a.curve(name).points) works.insert(p.work);
    for (const auto& p : b.curve(name).points) works.insert(p.work);
    json pts = json::array();
    for (double w : works) {
      const double ea = a.efficiency(name, w), eb = b.efficiency(name, w);
      pts.push_back({{"work", w}, {"a", ea}, {"b", eb}, {"ratio_b_over_a", eb / ea}});
    }
    c["points"] = pts;
    classes.push_back(c);
  }
  d["op_classes"] = classes;
  return d;
}

std::string format_profile_diff(const json& d) {
  std::string out = fmt::format("a: {}\nb: {}\n\npeak          a              b              b/a\n",
                                d["device"]["a"].get<std::string>(), d["device"]["b"].get<std::string>());
  for (const auto& p : d["peaks"]) {
    const std::string unit = p["unit"].get<std::string>();
    out += fmt::format("{:<13} {:>9.4g} {:<4} {:>9.4g} {:<4} {:>6.3f}x\n", p["peak"].get<std::string>(),
                       p["a"].get<double>(), unit == "FLOP/s" ? "F/s" : "B/s", p["b"].get<double>(),
                       unit == "FLOP/s" ? "F/s" : "B/s", p["ratio_b_over_a"].get<double>());
  }
  out += "\nop class (efficiency = achieved / peak)   work                 a        b        b/a\n";
  for (const auto& c : d["op_classes"]) {
    const std::string name = c["op_class"].get<std::string>();
    if (c["status"] != "in both") {
      out += fmt::format("{:<40} {}\n", name, c["status"].get<std::string>());
      continue;
    }
    const std::string unit = c["work_unit"].get<std::string>() == "flops" ? "FLOP" : "B";
    for (const auto& p : c["points"]) {
      out += fmt::format("{:<40} {:>12.4g} {:<5} {:>7.1f}% {:>7.1f}% {:>6.3f}x\n", name, p["work"].get<double>(), unit,
                         100.0 * p["a"].get<double>(), 100.0 * p["b"].get<double>(),
                         p["ratio_b_over_a"].get<double>());
    }
  }
  return out;
}

}  // namespace k3::kernels
