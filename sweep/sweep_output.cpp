#include "sweep/sweep_output.hpp"

#include <fmt/format.h>

#include <fstream>

#include "core/error.hpp"

namespace k3::sweep {

namespace {

// The headline numbers of a CSV row: JSON key in the step result -> column name with its unit.
struct CsvNumber {
  const char* key;
  const char* column;
};
constexpr CsvNumber kNumbers[] = {
    {"gpus", "gpus"},
    {"step_time_s", "step_time_s"},
    {"tokens_per_s", "tokens_per_s"},
    {"mfu", "mfu_fraction"},
    {"tflops_per_gpu", "tflops_per_gpu"},
    {"memory_bytes_per_gpu", "memory_bytes_per_gpu"},
    {"hbm_bytes", "hbm_bytes"},
    {"gpu_hours_per_trillion_tokens", "gpu_hours_per_trillion_tokens"},
    {"cost_per_trillion_tokens_usd", "cost_per_trillion_tokens_usd"},
};

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

nlohmann::json point_to_json(const PointResult& p) {
  nlohmann::json settings = nlohmann::json::object();
  for (const auto& o : p.settings) settings[o.key] = o.value;
  nlohmann::json j{{"index", p.index}, {"settings", settings}, {"ran", p.ran}, {"feasible", p.feasible},
                   {"pareto", p.pareto}, {"result", p.step}};
  if (!p.reason.empty()) j["reason"] = p.reason;
  return j;
}

PointResult point_from_json(const nlohmann::json& j) {
  PointResult p;
  p.index = j.at("index").get<std::size_t>();
  // Settings keep grid order: the caller knows the axes, JSON objects are sorted by key.
  for (const auto& [k, v] : j.at("settings").items()) p.settings.push_back({k, v.get<std::string>()});
  p.ran = j.at("ran").get<bool>();
  p.feasible = j.at("feasible").get<bool>();
  p.pareto = j.at("pareto").get<bool>();
  p.step = j.at("result");
  if (j.contains("reason")) p.reason = j.at("reason").get<std::string>();
  return p;
}

nlohmann::json sweep_to_json(const SweepSummary& s, const std::vector<PointResult>& results) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : s.axes) axes.push_back({{"key", a.key}, {"values", a.values}});
  nlohmann::json points = nlohmann::json::array();
  std::size_t feasible = 0, front = 0;
  for (const auto& r : results) {
    points.push_back(point_to_json(r));
    feasible += r.feasible;
    front += r.pareto;
  }
  return {{"scenario", s.scenario},
          {"axes", axes},
          {"pareto_axes", {s.pareto_x == ParetoX::gpus ? "gpus" : "cost_per_trillion_tokens_usd", "step_time_s"}},
          {"points_total", results.size()},
          {"points_feasible", feasible},
          {"points_on_front", front},
          {"points", points}};
}

std::string sweep_to_csv(const SweepSummary& s, const std::vector<PointResult>& results) {
  std::string out = "index";
  for (const auto& a : s.axes) out += "," + csv_field(a.key);
  out += ",feasible,pareto";
  for (const auto& n : kNumbers) out += std::string(",") + n.column;
  out += ",reason\n";
  for (const auto& r : results) {
    out += std::to_string(r.index);
    for (const auto& o : r.settings) out += "," + csv_field(o.value);
    out += r.feasible ? ",yes" : ",no";
    out += r.pareto ? ",yes" : ",no";
    for (const auto& n : kNumbers) {
      out += ",";
      if (r.ran && r.step.contains(n.key)) out += fmt::format("{}", r.step.at(n.key).get<double>());
    }
    out += "," + csv_field(r.reason) + "\n";
  }
  return out;
}

void write_sweep(const std::string& path, const SweepSummary& s, const std::vector<PointResult>& results) {
  const bool csv = path.ends_with(".csv");
  if (!csv && !path.ends_with(".json")) {
    throw core::InputError({"--out", "", 0}, "unknown output format '" + path + "'", "a path ending in .csv or .json");
  }
  std::ofstream out(path);
  if (!out) throw core::InputError({"--out", "", 0}, "cannot write '" + path + "'", "a writable file path");
  out << (csv ? sweep_to_csv(s, results) : sweep_to_json(s, results).dump(1) + "\n");
}

}  // namespace k3::sweep
