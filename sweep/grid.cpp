#include "sweep/grid.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <set>
#include <sstream>

#include "core/error.hpp"

namespace k3::sweep {

namespace {

using core::InputError;

constexpr const char* kGridForm = "key=v1,v2,... or key=lo:hi:xF (geometric) or key=lo:hi:+S (arithmetic)";

double number(const std::string& text, const std::string& whole, const std::string& key) {
  double v = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc{} || ptr != end || !std::isfinite(v)) {
    throw InputError({"--grid", key, 0}, "'" + text + "' in '" + whole + "' is not a number", kGridForm);
  }
  return v;
}

// Integers print without a decimal point so `parallel.ep=8:64:x2` gives 8, 16, 32, 64 as the scenario
// expects; anything else keeps full precision.
std::string format_value(double v) {
  if (std::abs(v) < 9e15 && v == std::round(v)) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::vector<std::string> range_values(const std::string& spec, const std::string& whole, const std::string& key) {
  std::vector<std::string> parts;
  std::stringstream ss(spec);
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
  if (parts.size() != 3 || parts[2].size() < 2 || (parts[2][0] != 'x' && parts[2][0] != '+')) {
    throw InputError({"--grid", key, 0}, "malformed range '" + spec + "'", kGridForm);
  }
  const double lo = number(parts[0], whole, key);
  const double hi = number(parts[1], whole, key);
  const double by = number(parts[2].substr(1), whole, key);
  const bool geometric = parts[2][0] == 'x';
  if (geometric ? (by <= 1 || lo <= 0) : by <= 0) {
    throw InputError({"--grid", key, 0}, "range '" + spec + "' never advances",
                     "a factor > 1 from a positive start (xF) or a step > 0 (+S)");
  }
  if (lo > hi) throw InputError({"--grid", key, 0}, "empty range '" + spec + "': start above end", "lo <= hi");
  std::vector<std::string> values;
  // Tolerance so 0.1:0.3:+0.1 reaches 0.3 despite rounding.
  const double slack = 1e-9 * std::max(std::abs(hi), 1.0);
  for (double v = lo; v <= hi + slack; v = geometric ? v * by : v + by) {
    values.push_back(format_value(v));
    if (values.size() > 100'000) throw InputError({"--grid", key, 0}, "range '" + spec + "' has too many values",
                                                  "at most 100000 values per axis");
  }
  return values;
}

}  // namespace

GridAxis parse_grid_axis(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError({"--grid", text, 0}, "expected key=values", kGridForm);
  GridAxis axis{text.substr(0, eq), {}};
  const std::string spec = text.substr(eq + 1);
  if (spec.empty()) throw InputError({"--grid", axis.key, 0}, "no values given", kGridForm);
  if (spec.find(':') != std::string::npos) {
    axis.values = range_values(spec, text, axis.key);
    return axis;
  }
  std::stringstream ss(spec);
  for (std::string v; std::getline(ss, v, ',');) {
    if (v.empty()) throw InputError({"--grid", axis.key, 0}, "empty value in '" + spec + "'", kGridForm);
    axis.values.push_back(v);
  }
  if (spec.back() == ',') throw InputError({"--grid", axis.key, 0}, "empty value in '" + spec + "'", kGridForm);
  return axis;
}

std::vector<GridPoint> expand_grid(const std::vector<GridAxis>& axes) {
  std::set<std::string> keys;
  for (const auto& a : axes) {
    if (!keys.insert(a.key).second) {
      throw InputError({"--grid", a.key, 0}, "the key is given by two --grid axes", "each key in one --grid");
    }
  }
  std::vector<GridPoint> points{GridPoint{}};
  for (const auto& a : axes) {
    std::vector<GridPoint> next;
    next.reserve(points.size() * a.values.size());
    for (const auto& p : points) {
      for (const auto& v : a.values) {
        auto q = p;
        q.push_back({a.key, v});
        next.push_back(std::move(q));
      }
    }
    points = std::move(next);
  }
  return points;
}

void validate_grid(const std::string& base_yaml, const std::string& source, const std::vector<input::Override>& sets,
                   const std::vector<GridAxis>& axes) {
  for (const auto& a : axes) {
    for (const auto& v : a.values) {
      auto overrides = sets;
      overrides.push_back({a.key, v});
      try {
        (void)input::parse_scenario(base_yaml, source, overrides);
      } catch (const InputError& e) {
        throw InputError({"--grid", a.key, 0}, "value '" + v + "' is not valid here: " + e.what());
      }
    }
  }
}

}  // namespace k3::sweep
