#include "kernels/common/tolerance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace k3::kernels {

double Tolerance::bound(double want, double magnitude) const {
  return abs + rel * std::max(std::fabs(want), magnitude);
}

Comparison compare(std::span<const float> got, std::span<const float> want, Tolerance tol,
                   std::span<const float> magnitude) {
  K3SIM_ASSERT(got.size() == want.size(), "compare: sizes differ");
  K3SIM_ASSERT(magnitude.empty() || magnitude.size() == want.size(), "compare: magnitude size differs");
  Comparison c;
  c.count = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    const double b = tol.bound(want[i], magnitude.empty() ? 0.0 : static_cast<double>(magnitude[i]));
    // NaN in either compares false everywhere: count it as a violation explicitly.
    const bool bad = !(err <= b);
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const double ratio = !std::isfinite(err) ? kInf : (b > 0 ? err / b : (err > 0 ? kInf : 0.0));
    if (bad) ++c.violations;
    if (std::isfinite(err)) c.max_abs_error = std::max(c.max_abs_error, err);
    if (ratio > c.worst_ratio || (bad && c.violations == 1)) {
      c.worst_ratio = std::max(c.worst_ratio, ratio);
      c.worst_index = i;
    }
  }
  return c;
}

std::string Comparison::summary() const {
  return fmt::format("{} elements, {} outside tolerance, max abs error {:.3g}, worst at index {} (error/bound {:.3g})",
                     count, violations, max_abs_error, worst_index, worst_ratio);
}

}  // namespace k3::kernels
