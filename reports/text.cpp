#include "reports/text.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>

namespace k3::reports {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string exact_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::array<char, 64> buf{};
  const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  return std::string(buf.data(), res.ptr);
}

namespace {
// Inserts thousands separators into the integer part of a plain decimal string.
std::string group_thousands(const std::string& plain) {
  const std::size_t start = (!plain.empty() && plain[0] == '-') ? 1 : 0;
  std::size_t end = plain.find('.');
  if (end == std::string::npos) end = plain.size();
  std::string out = plain.substr(0, start);
  for (std::size_t i = start; i < end; ++i) {
    out += plain[i];
    const std::size_t left = end - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  out += plain.substr(end);
  return out;
}

std::string strip_trailing_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}
}  // namespace

std::string display_number(double value, int significant) {
  if (std::isnan(value)) return "n/a";
  if (std::isinf(value)) return value > 0 ? "\u221e" : "-\u221e";
  if (value == 0.0) return "0";
  const double mag = std::fabs(value);
  if (mag < 1e-6) return fmt::format("{:.{}e}", value, std::max(significant - 1, 0));
  // From a million up a decimal prefix (issue 47: no number of more than 6 digits without one).
  struct Prefix { double scale; const char* name; };
  static constexpr std::array<Prefix, 5> kPrefixes{{{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}}};
  for (const auto& p : kPrefixes) {
    if (mag >= p.scale) return display_number(value / p.scale, significant) + " " + p.name;
  }
  const int int_digits = static_cast<int>(std::floor(std::log10(mag))) + 1;
  const int decimals = std::max(significant - int_digits, 0);
  return group_thousands(strip_trailing_zeros(fmt::format("{:.{}f}", value, decimals)));
}

std::string tick_label(double value) {
  if (value == 0.0) return "0";
  const double mag = std::fabs(value);
  struct Suffix { double scale; const char* name; };
  static constexpr std::array<Suffix, 4> kSuffixes{{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& s : kSuffixes) {
    if (mag >= s.scale * 10 || (mag >= s.scale && s.scale >= 1e6)) {
      return strip_trailing_zeros(fmt::format("{:.2f}", value / s.scale)) + s.name;
    }
  }
  if (mag < 1e-3) {
    const int e = static_cast<int>(std::floor(std::log10(mag)));
    const double m = value / std::pow(10.0, e);
    return strip_trailing_zeros(fmt::format("{:.2f}", m)) + "e" + std::to_string(e);
  }
  return strip_trailing_zeros(fmt::format("{:.4g}", value));
}

std::string with_unit(std::string_view name, std::string_view unit) {
  if (unit.empty()) return std::string(name);
  return fmt::format("{} ({})", name, unit);
}

}  // namespace k3::reports
