#pragma once
// Pareto front of points to minimise on two axes (GPUs or cost, step time).
#include <vector>

namespace k3::sweep {

struct Objective2 {
  double x = 0;  // e.g. GPUs, or USD per trillion tokens
  double y = 0;  // e.g. step time in s
};

// front[i] is true when no other point is at least as good on both axes and strictly better on one.
// Points equal on both axes do not dominate each other, so ties stay on the front together.
std::vector<bool> pareto_front(const std::vector<Objective2>& points);

}  // namespace k3::sweep
