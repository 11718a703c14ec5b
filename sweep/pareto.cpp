#include "sweep/pareto.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace k3::sweep {

std::vector<bool> pareto_front(const std::vector<Objective2>& points) {
  // Sort by x then y; sweep keeping the best y seen at strictly smaller x (or equal x and smaller y).
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return points[a].x != points[b].x ? points[a].x < points[b].x : points[a].y < points[b].y;
  });
  std::vector<bool> front(points.size(), false);
  double best_y = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < order.size();) {
    // One group of equal x: only its smallest y (and ties of it) can survive, and only if it beats best_y.
    std::size_t j = i;
    const double x = points[order[i]].x;
    const double group_min_y = points[order[i]].y;
    while (j < order.size() && points[order[j]].x == x) {
      const auto& p = points[order[j]];
      if (p.y == group_min_y && p.y < best_y) front[order[j]] = true;
      ++j;
    }
    best_y = std::min(best_y, group_min_y);
    i = j;
  }
  return front;
}

}  // namespace k3::sweep
