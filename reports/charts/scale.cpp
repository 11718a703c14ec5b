#include "reports/charts/scale.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace k3::reports {

std::vector<double> nice_ticks(double lo, double hi, int target) {
  K3SIM_ASSERT(std::isfinite(lo) && std::isfinite(hi) && lo <= hi, "nice_ticks needs a finite lo <= hi");
  K3SIM_ASSERT(target >= 1, "nice_ticks needs a positive target");
  if (lo == hi) {
    const double pad = lo == 0.0 ? 1.0 : std::fabs(lo) * 0.5;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude * 10;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (magnitude * m >= raw) {
      step = magnitude * m;
      break;
    }
  }
  const double first = std::floor(lo / step) * step;
  const double last = std::ceil(hi / step) * step;
  std::vector<double> ticks;
  const long count = std::lround((last - first) / step);
  for (long i = 0; i <= count; ++i) {
    double t = first + static_cast<double>(i) * step;
    if (std::fabs(t) < step * 1e-9) t = 0.0;  // avoid "-0" and 1e-17 from accumulated rounding
    ticks.push_back(t);
  }
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
  K3SIM_ASSERT(lo > 0 && hi >= lo && std::isfinite(hi), "log_ticks needs 0 < lo <= hi");
  const int e_lo = static_cast<int>(std::floor(std::log10(lo) + 1e-12));
  int e_hi = static_cast<int>(std::ceil(std::log10(hi) - 1e-12));
  if (e_hi == e_lo) ++e_hi;
  std::vector<double> ticks;
  const bool fine = (e_hi - e_lo) < 3;
  // Wide ranges label every k-th decade so that at most about eight labels share the axis.
  const int stride = std::max(1, (e_hi - e_lo + 7) / 8);
  e_hi = e_lo + (e_hi - e_lo + stride - 1) / stride * stride;
  for (int e = e_lo; e <= e_hi; e += stride) {
    const double p = std::pow(10.0, e);
    ticks.push_back(p);
    if (fine && e < e_hi) {
      ticks.push_back(2 * p);
      ticks.push_back(5 * p);
    }
  }
  return ticks;
}

Scale::Scale(double domain_lo, double domain_hi, double px_lo, double px_hi, bool log)
    : lo_(domain_lo), hi_(domain_hi), px_lo_(px_lo), px_hi_(px_hi), log_(log) {
  K3SIM_ASSERT(domain_hi > domain_lo, "a scale needs a non-empty domain");
  K3SIM_ASSERT(!log || domain_lo > 0, "a log scale needs a positive domain");
}

double Scale::operator()(double value) const {
  double f;
  if (log_) {
    const double v = std::max(value, lo_ * 1e-3);  // zero or negative values sit below the axis floor
    f = (std::log10(v) - std::log10(lo_)) / (std::log10(hi_) - std::log10(lo_));
  } else {
    f = (value - lo_) / (hi_ - lo_);
  }
  return px_lo_ + f * (px_hi_ - px_lo_);
}

}  // namespace k3::reports
