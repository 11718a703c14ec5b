#include "core/quantity.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace k3::core {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<double> suffix_factor(std::string_view suffix) {
  static constexpr std::array<std::pair<std::string_view, double>, 17> kSuffixes{{
      {"", 1.0},
      {"K", 1024.0}, {"M", 1048576.0}, {"G", 1073741824.0}, {"T", 1099511627776.0},
      {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
      {"B", 1.0}, {"k", 1e3}, {"Ki", 1024.0}, {"Mi", 1048576.0},
  }};
  for (const auto& [name, f] : kSuffixes) {
    if (name == suffix) return f;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_quantity(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  double value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  auto factor = suffix_factor(trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr))));
  if (!factor || !std::isfinite(value)) return std::nullopt;
  return value * *factor;
}

std::optional<std::vector<double>> parse_quantity_list(std::string_view text) {
  std::vector<double> out;
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.find(',') != std::string_view::npos) {
    while (!text.empty()) {
      const auto comma = text.find(',');
      auto item = parse_quantity(text.substr(0, comma));
      if (!item) return std::nullopt;
      out.push_back(*item);
      if (comma == std::string_view::npos) break;
      text.remove_prefix(comma + 1);
    }
    return out;
  }
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) {
    auto one = parse_quantity(text);
    if (!one) return std::nullopt;
    return std::vector<double>{*one};
  }
  auto lo = parse_quantity(text.substr(0, colon));
  std::string_view rest = text.substr(colon + 1);
  const auto colon2 = rest.find(':');
  auto hi = parse_quantity(rest.substr(0, colon2));
  if (!lo || !hi || *lo <= 0 || *hi < *lo) return std::nullopt;
  double factor = 2.0;
  double step = 0.0;
  if (colon2 != std::string_view::npos) {
    std::string_view spec = trim(rest.substr(colon2 + 1));
    if (spec.size() < 2 || (spec[0] != 'x' && spec[0] != '+')) return std::nullopt;
    auto v = parse_quantity(spec.substr(1));
    if (!v) return std::nullopt;
    if (spec[0] == 'x') {
      if (*v <= 1.0) return std::nullopt;
      factor = *v;
    } else {
      if (*v <= 0.0) return std::nullopt;
      step = *v;
      factor = 0.0;
    }
  }
  constexpr std::size_t kMaxPoints = 1'000'000;
  for (double x = *lo; x <= *hi * (1 + 1e-12) && out.size() < kMaxPoints; x = factor > 0 ? x * factor : x + step) {
    out.push_back(x);
  }
  return out;
}

std::string format_bytes(double bytes) {
  static constexpr std::array<const char*, 6> kUnits{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = bytes;
  std::size_t u = 0;
  while (std::fabs(v) >= 1024.0 && u + 1 < kUnits.size()) {
    v /= 1024.0;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.2f} {}", v, kUnits[u]);
}

std::string format_seconds(double s) {
  const double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a < 1e-6) return fmt::format("{:.1f} ns", s * 1e9);
  if (a < 1e-3) return fmt::format("{:.2f} us", s * 1e6);
  if (a < 1.0) return fmt::format("{:.2f} ms", s * 1e3);
  // Spans of a whole run read in minutes, hours and days, not in 6-digit seconds.
  if (a < 600) return fmt::format("{:.3f} s", s);
  if (a < 7200) return fmt::format("{:.1f} min", s / 60);
  if (a < 2 * 86400) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.1f} days", s / 86400);
}

std::string format_count(double c) {
  const double a = std::fabs(c);
  if (a >= 1e12) return fmt::format("{:.3f}T", c / 1e12);
  if (a >= 1e9) return fmt::format("{:.2f}B", c / 1e9);
  if (a >= 1e6) return fmt::format("{:.2f}M", c / 1e6);
  if (a >= 1e3) return fmt::format("{:.1f}K", c / 1e3);
  return fmt::format("{:.0f}", c);
}

std::string format_binary_count(double c) {
  const double mib = 1024.0 * 1024.0;
  if (c >= mib && std::fmod(c, mib) == 0) return fmt::format("{:.0f}M", c / mib);
  if (c >= 1024 && std::fmod(c, 1024) == 0) return fmt::format("{:.0f}K", c / 1024);
  return format_count(c);
}

std::string format_in_unit(double v, std::string_view unit) {
  if (unit == "s") return format_seconds(v);
  if (unit == "ms") return format_seconds(v / 1e3);
  if (unit == "B") return format_bytes(v);
  if (unit == "tokens/s") return format_count(v) + " tokens/s";
  if (unit == "USD") return "$" + format_count(v);
  if (unit.starts_with("fraction of ")) return fmt::format("{:.1f}% of {}", 100 * v, unit.substr(12));
  const std::string number = std::fabs(v) >= 1e4 ? format_count(v) : fmt::format("{:.4g}", v);
  return unit.empty() ? number : number + " " + std::string(unit);
}

}  // namespace k3::core
