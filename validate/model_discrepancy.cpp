#include "validate/model_discrepancy.hpp"

#include <cmath>

namespace k3::validate {

namespace {

double mean_square(const std::vector<double>& r) {
  double sum = 0;
  for (double x : r) sum += x * x;
  return r.empty() ? 0 : sum / static_cast<double>(r.size());
}

}  // namespace

DiscrepancyFit fit_discrepancy(const std::vector<FamilyResiduals>& families, const std::string& quantity,
                               const std::string& leave_out) {
  auto usable = [&](const FamilyResiduals& f) { return f.family != leave_out && !f.log_residuals.empty(); };
  int same_quantity = 0;
  for (const auto& f : families) same_quantity += usable(f) && f.quantity == quantity ? 1 : 0;
  DiscrepancyFit fit;
  fit.pooled = same_quantity < 2;
  double sum = 0;
  for (const auto& f : families) {
    if (!usable(f) || (!fit.pooled && f.quantity != quantity)) continue;
    sum += mean_square(f.log_residuals);
    fit.fitted_on.push_back(f.family);
  }
  if (!fit.fitted_on.empty()) fit.sigma_log = std::sqrt(sum / static_cast<double>(fit.fitted_on.size()));
  return fit;
}

}  // namespace k3::validate
