#pragma once
// Axis scales for the SVG charts: "nice" tick values (1, 2, 5 x 10^k) on linear axes, powers of ten on
// log axes, and the mapping from data values to pixels.
#include <vector>

namespace k3::reports {

// Ticks covering [lo, hi] with about `target` steps of 1, 2 or 5 x 10^k; the first tick is <= lo and the
// last >= hi, so the axis ends on round numbers. lo == hi widens to a unit range around the value.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);

// Powers of ten from floor(log10 lo) to ceil(log10 hi); 2 and 5 multiples added when the range spans
// fewer than three decades; every k-th decade when more than eight. Both bounds must be > 0.
std::vector<double> log_ticks(double lo, double hi);

// Maps a data interval to a pixel interval (pixels may run backwards, as on a y axis).
class Scale {
 public:
  Scale(double domain_lo, double domain_hi, double px_lo, double px_hi, bool log);
  double operator()(double value) const;
  double domain_lo() const { return lo_; }
  double domain_hi() const { return hi_; }
  bool log() const { return log_; }

 private:
  double lo_, hi_, px_lo_, px_hi_;
  bool log_;
};

}  // namespace k3::reports
