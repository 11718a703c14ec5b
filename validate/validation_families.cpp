// The model-discrepancy band of every case, fitted leaving the case's own family out, and the per-family sums.
#include <algorithm>
#include <cmath>
#include <map>

#include "validate/validation.hpp"

namespace k3::validate {

void ValidationCase::set_discrepancy(const DiscrepancyFit& fit) {
  centre = has_band ? p50 : predicted;
  p50_rel_error = (centre - published) / published;
  discrepancy = fit;
  const auto band = results::widen_by_discrepancy(
      has_band ? train::Quantiles{p10, p50, p90} : train::Quantiles{centre, centre, centre}, fit.sigma_log);
  band_p10 = band.p10;
  band_p90 = band.p90;
  in_band = published >= band_p10 && published <= band_p90;
}

namespace {

// Residuals of each case's band centre (the point the discrepancy widens around), by family in case order.
std::vector<FamilyResiduals> family_residuals(const std::vector<ValidationCase>& cases) {
  std::vector<FamilyResiduals> families;
  std::map<std::string, std::size_t> index;
  for (const auto& c : cases) {
    auto [it, fresh] = index.emplace(c.group, families.size());
    if (fresh) families.push_back({c.group, c.quantity, {}});
    families[it->second].log_residuals.push_back(std::log(c.published / (c.has_band ? c.p50 : c.predicted)));
  }
  return families;
}

}  // namespace

std::vector<results::QuantityDiscrepancy> discrepancy_table(const ValidationReport& report) {
  const auto families = family_residuals(report.cases);
  std::vector<results::QuantityDiscrepancy> rows;
  for (const auto& f : families) {
    bool seen = false;
    for (const auto& r : rows) seen = seen || r.quantity == f.quantity;
    if (!seen) rows.push_back({f.quantity, fit_discrepancy(families, f.quantity, "")});
  }
  return rows;
}

results::QuantityDiscrepancy shipped_discrepancy(const std::string& quantity) {
  const std::string path = std::string(K3SIM_VALIDATION_SOURCE_DIR) + "/" + kDiscrepancyTableName;
  return results::discrepancy_of(results::read_discrepancy_table(path), quantity, path);
}

void apply_discrepancy(ValidationReport& report) {
  const auto families = family_residuals(report.cases);
  for (auto& c : report.cases) c.set_discrepancy(fit_discrepancy(families, c.quantity, c.group));

  report.families.clear();
  report.cases_with_band = 0;
  report.cases_in_band = 0;
  double width_sum = 0;
  for (const auto& f : families) {
    FamilySummary s;
    s.family = f.family;
    s.quantity = f.quantity;
    s.min_error = HUGE_VAL;
    s.max_error = -HUGE_VAL;
    for (const auto& c : report.cases) {
      if (c.group != f.family) continue;
      ++s.rows;
      s.in_band += c.in_band ? 1 : 0;
      s.min_error = std::min(s.min_error, c.p50_rel_error);
      s.max_error = std::max(s.max_error, c.p50_rel_error);
      s.mean_abs_error += std::abs(c.p50_rel_error);
      s.mean_band_width += (c.band_p90 - c.band_p10) / c.centre;
      s.discrepancy = c.discrepancy;
    }
    report.cases_with_band += s.rows;
    report.cases_in_band += s.in_band;
    width_sum += s.mean_band_width;
    s.mean_abs_error /= s.rows;
    s.mean_band_width /= s.rows;
    report.families.push_back(std::move(s));
  }
  report.mean_band_width = report.cases.empty() ? 0 : width_sum / static_cast<double>(report.cases.size());
  std::stable_sort(report.families.begin(), report.families.end(),
                   [](const FamilySummary& a, const FamilySummary& b) { return a.mean_abs_error > b.mean_abs_error; });
}

}  // namespace k3::validate
