#pragma once
// Comparing a kernel's output with its CPU reference. The allowed error grows with the value:
//   |got - want| <= abs + rel * max(|want|, magnitude)
// where `magnitude` (optional) is the size of the terms that were summed to give `want` (for a dot
// product: sum |a_i b_i|), so that cancellation does not demand more precision than the inputs had.
#include <cstddef>
#include <span>
#include <string>

namespace k3::kernels {

struct Tolerance {
  double abs = 0;
  double rel = 0;
  double bound(double want, double magnitude = 0) const;
};

struct Comparison {
  std::size_t count = 0;
  std::size_t violations = 0;
  double max_abs_error = 0;
  double worst_ratio = 0;  // max over elements of error / bound (<= 1 when everything is within tolerance)
  std::size_t worst_index = 0;
  bool ok() const { return violations == 0; }
  std::string summary() const;  // "n elements, k outside tolerance, max error e, worst at i (ratio r)"
};

Comparison compare(std::span<const float> got, std::span<const float> want, Tolerance tol,
                   std::span<const float> magnitude = {});

}  // namespace k3::kernels
