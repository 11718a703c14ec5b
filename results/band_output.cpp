#include "results/band_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "core/quantity.hpp"

namespace k3::results {

nlohmann::json quantiles_json(const train::Quantiles& q) { return {{"p10", q.p10}, {"p50", q.p50}, {"p90", q.p90}}; }

nlohmann::json provenance_json(const std::vector<core::ProvenanceEntry>& entries) {
  auto out = nlohmann::json::array();
  for (const auto& e : entries) {
    out.push_back({{"id", e.id}, {"value", e.value}, {"low", e.low}, {"high", e.high}, {"unit", e.unit},
                   {"kind", std::string(core::to_string(e.kind))}, {"source", e.source}});
  }
  return out;
}

namespace {

// What a ranking row moves, in words: a stack's members from their slow to their fast ends, or a number's range.
std::string moved_range(const train::Sensitivity& s) {
  if (s.is_stack) return fmt::format("its {} numbers from their slow to their fast ends", s.members.size());
  const auto& e = s.members.front();
  return fmt::format("{} .. {}", core::format_value(e.low, e.unit), core::format_value(e.high, e.unit));
}

}  // namespace

nlohmann::json sensitivity_json(const std::vector<train::Sensitivity>& ranking) {
  auto out = nlohmann::json::array();
  for (const auto& s : ranking) {
    nlohmann::json row = {{"id", s.id},
                          {"factor", s.is_stack ? "software stack" : "number alone"},
                          {"range", moved_range(s)},
                          {"step_time_at_low_s", s.step_time_at_low_s},
                          {"step_time_at_high_s", s.step_time_at_high_s},
                          {"swing_s", s.swing_s()}};
    if (s.is_stack) {
      auto members = nlohmann::json::array();
      for (const auto& e : s.members) members.push_back(e.id);
      row["members"] = members;
      row["kind"] = "software stack";
      row["source"] = "each member's own (under provenance); drawn as one factor: sim/train/stack_factors.hpp";
    } else {
      const auto& e = s.members.front();
      row.update({{"value", e.value}, {"low", e.low}, {"high", e.high}, {"unit", e.unit},
                  {"kind", std::string(core::to_string(e.kind))}, {"source", e.source}});
    }
    out.push_back(std::move(row));
  }
  return out;
}

nlohmann::json band_json(const train::StepBand& band) {
  return {{"samples", band.samples},
          {"runs", band.runs},
          {"method", band.method},
          {"step_time_s", quantiles_json(band.step_time_s)},
          {"tokens_per_s", quantiles_json(band.tokens_per_s)},
          {"mfu", quantiles_json(band.mfu)},
          {"memory_bytes_per_gpu", quantiles_json(band.memory_bytes_per_gpu)}};
}

void add_band(nlohmann::json& step, const train::StepBand& band) {
  if (band.samples <= 0) return;
  step["band"] = band_json(band);
  step["sensitivity"] = sensitivity_json(band.sensitivity);
  if (!band.entry_sensitivity.empty()) step["sensitivity_by_entry"] = sensitivity_json(band.entry_sensitivity);
}

std::string band_to_text(const train::StepBand& band, std::size_t top) {
  if (band.samples <= 0) return {};
  std::string out;
  const auto& t = band.step_time_s;
  out += fmt::format("uncertainty ({} samples over the provenance ranges, {} step simulations)\n", band.samples,
                     band.runs);
  out += fmt::format("  step time   P10 {:.3f} s   P50 {:.3f} s   P90 {:.3f} s\n", t.p10, t.p50, t.p90);
  out += fmt::format("  throughput  P10 {} tokens/s   P50 {} tokens/s   P90 {} tokens/s\n",
                     core::format_count(band.tokens_per_s.p10), core::format_count(band.tokens_per_s.p50),
                     core::format_count(band.tokens_per_s.p90));
  out += fmt::format("  MFU         P10 {:.1f} %   P50 {:.1f} %   P90 {:.1f} %\n", 100 * band.mfu.p10,
                     100 * band.mfu.p50, 100 * band.mfu.p90);
  auto ranking = [&out, top](const std::vector<train::Sensitivity>& rows) {
    for (std::size_t i = 0; i < std::min(top, rows.size()); ++i) {
      const auto& s = rows[i];
      out += fmt::format("  {:<32} {:>9.3f} s .. {:>9.3f} s  (swing {:+.3f} s; {}, {})\n", s.id, s.step_time_at_low_s,
                         s.step_time_at_high_s, s.swing_s(), moved_range(s),
                         s.is_stack ? "software stack" : core::to_string(s.members.front().kind));
    }
  };
  out += "sensitivity (step time with one factor at its low / high end, the others at their values; a software "
         "stack's low end is its slow end)\n";
  ranking(band.sensitivity);
  if (!band.entry_sensitivity.empty()) {
    out += "sensitivity by number (step time with one number at its low / high end, the others at their values)\n";
    ranking(band.entry_sensitivity);
  }
  return out;
}

void add_model_discrepancy(nlohmann::json& step, const train::StepBand& band, const QuantityDiscrepancy& d,
                           const std::string& table) {
  if (band.samples <= 0) return;
  const double s = d.fit.sigma_log;
  step["band"]["with_model_discrepancy"] = {{"step_time_s", quantiles_json(widen_by_discrepancy(band.step_time_s, s))},
                                            {"tokens_per_s", quantiles_json(widen_by_discrepancy(band.tokens_per_s, s))},
                                            {"mfu", quantiles_json(widen_by_discrepancy(band.mfu, s))},
                                            {"quantity", d.quantity},
                                            {"sigma_log", s},
                                            {"fitted_on", d.fit.fitted_on},
                                            {"pooled", d.fit.pooled},
                                            {"table", table}};
}

std::string model_discrepancy_to_text(const train::StepBand& band, const QuantityDiscrepancy& d) {
  if (band.samples <= 0) return {};
  const double s = d.fit.sigma_log;
  const auto t = widen_by_discrepancy(band.step_time_s, s);
  const auto r = widen_by_discrepancy(band.tokens_per_s, s);
  return fmt::format("with the model discrepancy (how far k3sim's {}s have landed from published ones: sigma of "
                     "ln {:.3f}, {} families: {}; `k3sim validate`)\n"
                     "  step time   P10 {:.3f} s   P50 {:.3f} s   P90 {:.3f} s\n"
                     "  throughput  P10 {} tokens/s   P50 {} tokens/s   P90 {} tokens/s\n",
                     d.quantity, s, d.fit.fitted_on.size(), fmt::join(d.fit.fitted_on, ", "), t.p10, t.p50, t.p90,
                     core::format_count(r.p10), core::format_count(r.p50), core::format_count(r.p90));
}

}  // namespace k3::results
