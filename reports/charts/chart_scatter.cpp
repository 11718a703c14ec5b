// Scatter plot of variants with the Pareto front highlighted and joined by a step line.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "reports/charts/charts.hpp"
#include "reports/charts/svg_canvas.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

std::vector<std::size_t> pareto_front(const ScatterChart& c) {
  // Flip signs so that smaller is better on both axes, then a point is on the front when no other
  // point is <= on both axes and < on at least one.
  const double sx = c.minimize_x ? 1.0 : -1.0;
  const double sy = c.minimize_y ? 1.0 : -1.0;
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const double xi = sx * c.points[i].x, yi = sy * c.points[i].y;
    bool dominated = false;
    for (std::size_t j = 0; j < c.points.size() && !dominated; ++j) {
      const double xj = sx * c.points[j].x, yj = sy * c.points[j].y;
      dominated = xj <= xi && yj <= yi && (xj < xi || yj < yi);
    }
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) { return c.points[a].x < c.points[b].x; });
  return front;
}

Svg scatter_chart(const ScatterChart& c) {
  K3SIM_ASSERT(!c.points.empty(), "scatter '" + c.title + "' has no points");
  double xlo = c.points.front().x, xhi = xlo, ylo = c.points.front().y, yhi = ylo;
  for (const auto& p : c.points) {
    K3SIM_ASSERT(std::isfinite(p.x) && std::isfinite(p.y), "scatter '" + c.title + "' holds a non-finite point");
    K3SIM_ASSERT((!c.x_axis.log || p.x > 0) && (!c.y_axis.log || p.y > 0),
                 "scatter '" + c.title + "' has a non-positive value on a log axis");
    xlo = std::min(xlo, p.x);
    xhi = std::max(xhi, p.x);
    ylo = std::min(ylo, p.y);
    yhi = std::max(yhi, p.y);
  }
  const std::vector<std::size_t> front = pareto_front(c);
  std::vector<bool> on_front(c.points.size(), false);
  for (const auto i : front) on_front[i] = true;

  detail::SvgCanvas canvas(c.size.width_px, c.size.height_px, "scatter", c.title);
  const std::vector<detail::LegendEntry> legend{{"Pareto front", detail::palette_colour(3)},
                                                {"dominated", detail::palette_colour(4)}};
  const detail::PlotArea area = detail::frame(canvas, c.title, 70, legend);
  const detail::AxisTicks xt = detail::axis_ticks(xlo, xhi, c.x_axis.log);
  const detail::AxisTicks yt = detail::axis_ticks(ylo, yhi, c.y_axis.log);
  const Scale xs(xt.lo, xt.hi, area.left, area.right, c.x_axis.log);
  const Scale ys(yt.lo, yt.hi, area.bottom, area.top, c.y_axis.log);
  detail::draw_value_axis_x(canvas, area, xs, xt.ticks, c.x_axis);
  detail::draw_value_axis_y(canvas, area, ys, yt.ticks, c.y_axis);

  // Step line through the front: each segment goes across, then up or down, as attainable trade-offs do.
  std::vector<std::pair<double, double>> steps;
  for (std::size_t k = 0; k < front.size(); ++k) {
    const auto& p = c.points[front[k]];
    if (k > 0) steps.emplace_back(xs(p.x), steps.back().second);
    steps.emplace_back(xs(p.x), ys(p.y));
  }
  if (steps.size() > 1) canvas.polyline(steps, detail::palette_colour(3), R"(stroke-dasharray="4 3")");

  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const auto& p = c.points[i];
    const std::string tip = fmt::format("{}{}: {}, {}", p.name, on_front[i] ? " (Pareto front)" : "",
                                        detail::tooltip(c.x_axis.label, p.x, c.x_axis.unit),
                                        detail::tooltip(c.y_axis.label, p.y, c.y_axis.unit));
    if (on_front[i]) {
      canvas.mark_circle(xs(p.x), ys(p.y), 6, detail::palette_colour(3), tip, R"(stroke="#222" stroke-width="1.5")");
    } else {
      canvas.mark_circle(xs(p.x), ys(p.y), 4.5, detail::palette_colour(4), tip, R"(fill-opacity="0.8")");
    }
  }
  return std::move(canvas).finish();
}

}  // namespace k3::reports
