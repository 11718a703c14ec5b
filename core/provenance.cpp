#include "core/provenance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/quantity.hpp"

namespace k3::core {

std::string_view to_string(SourceKind k) {
  switch (k) {
    case SourceKind::datasheet: return "datasheet";
    case SourceKind::kernel_measurement: return "kernel measurement";
    case SourceKind::collective_measurement: return "collective measurement";
    case SourceKind::assumption: return "assumption";
  }
  return "assumption";
}

double Provenance::add(std::string id, double nominal, double low, double high, std::string unit, SourceKind kind,
                       std::string source) {
  if (auto it = index_.find(id); it != index_.end()) return entries_[it->second].value;
  K3SIM_ASSERT(low <= nominal && nominal <= high, fmt::format("provenance entry '{}': {} is outside {}..{}", id,
                                                              nominal, low, high));
  double value = nominal;
  if (auto o = overrides_.find(id); o != overrides_.end()) {
    // A little slack for the rounding of a printed range.
    const double slack = 1e-9 * std::max(std::abs(low), std::abs(high));
    if (o->second < low - slack || o->second > high + slack) {
      throw InputError({"", id, 0}, fmt::format("override {} is outside the entry's plausible range", o->second),
                       fmt::format("{} .. {} {}", low, high, unit));
    }
    value = o->second;
  }
  index_.emplace(id, entries_.size());
  entries_.push_back({std::move(id), value, nominal, low, high, std::move(unit), kind, std::move(source)});
  return value;
}

bool Provenance::has(std::string_view id) const { return index_.find(id) != index_.end(); }

const ProvenanceEntry& Provenance::entry(std::string_view id) const {
  const auto it = index_.find(id);
  if (it == index_.end()) throw InternalError(fmt::format("'{}' used without a provenance entry", id));
  return entries_[it->second];
}

double Provenance::value(std::string_view id) const { return entry(id).value; }

std::vector<std::string> Provenance::unused_overrides() const {
  std::vector<std::string> out;
  for (const auto& [id, v] : overrides_) {
    if (!has(id)) out.push_back(id);
  }
  return out;
}

}  // namespace k3::core

namespace k3::core {

std::string format_value(double v, std::string_view unit) {
  if (unit == "FLOP/s") return fmt::format("{:.4g} TFLOP/s", v / 1e12);
  if (unit == "B/s") return fmt::format("{:.4g} GB/s", v / 1e9);
  if (unit == "s") return v < 1e-3 ? fmt::format("{:.3g} us", v * 1e6) : fmt::format("{:.4g} s", v);
  if (unit == "fraction") return fmt::format("{:.3g}", v);
  if (unit == "x") return fmt::format("{:.3g}x", v);
  return format_in_unit(v, unit);
}

std::vector<std::string> describe(const std::vector<ProvenanceEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) {
    const std::string range =
        e.has_range() ? fmt::format("range {} .. {}", format_value(e.low, e.unit), format_value(e.high, e.unit))
                      : std::string("exact");
    out.push_back(fmt::format("{} = {} ({}, {}): {}", e.id, format_value(e.value, e.unit), range, to_string(e.kind),
                              e.source));
  }
  return out;
}

}  // namespace k3::core
