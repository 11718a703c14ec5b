#pragma once
// The provenance registry: every number a prediction depends on, each one entry with its value, a
// plausible low..high range, what kind of figure it is and where it comes from.
//
// A registry is made per simulated step (no global state). Each floor registers the numbers it reads
// (the cost model its efficiencies, the network its link figures, ...) and reads them back through
// value(): a number that was never registered cannot be read, and the assumptions list of every output is
// generated from entries(), so it is complete by construction. Overrides (by id) replace an entry's value
// when it is registered: that is how the uncertainty band (sim/train/step_band.hpp) moves one number at a
// time or samples them all.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace k3::core {

enum class SourceKind { datasheet, kernel_measurement, collective_measurement, assumption };
std::string_view to_string(SourceKind k);

struct ProvenanceEntry {
  std::string id;      // dotted, e.g. "gemm.bf16.efficiency"
  double value = 0;    // what the prediction uses (the override when one was given)
  double nominal = 0;  // the registered best estimate
  double low = 0, high = 0;  // plausible range; low == high for an exact figure
  std::string unit;    // "fraction", "FLOP/s", "B/s", "s", "x", "count"
  SourceKind kind = SourceKind::assumption;
  std::string source;
  bool has_range() const { return high > low; }
};

class Provenance {
 public:
  Provenance() = default;
  explicit Provenance(std::map<std::string, double, std::less<>> overrides) : overrides_(std::move(overrides)) {}

  // Registers an entry and returns the value in use. The range must hold the nominal value; an override
  // must lie inside the range (core::InputError otherwise, naming the id). Registering an id twice keeps
  // the first entry (several parts may read the same figure).
  double add(std::string id, double nominal, double low, double high, std::string unit, SourceKind kind,
             std::string source);
  // An exact figure (datasheet peaks): low == high == nominal.
  double add_exact(std::string id, double value, std::string unit, SourceKind kind, std::string source) {
    return add(std::move(id), value, value, value, std::move(unit), kind, std::move(source));
  }
  // The value of a registered entry; core::InternalError ("used without a provenance entry") otherwise.
  double value(std::string_view id) const;
  bool has(std::string_view id) const;
  const ProvenanceEntry& entry(std::string_view id) const;

  const std::vector<ProvenanceEntry>& entries() const { return entries_; }
  // Overrides whose id no part registered: a typo or a number this step does not depend on.
  std::vector<std::string> unused_overrides() const;

 private:
  std::map<std::string, double, std::less<>> overrides_;
  std::vector<ProvenanceEntry> entries_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

}  // namespace k3::core

namespace k3::core {

// One line per entry, "id = value unit (range low..high, kind): source", for the assumptions list of every
// output (the HTML report splits it at the first colon).
std::vector<std::string> describe(const std::vector<ProvenanceEntry>& entries);
std::string format_value(double value, std::string_view unit);

}  // namespace k3::core
