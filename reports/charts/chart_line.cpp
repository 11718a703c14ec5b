// Line charts with several series, optional log axes and horizontal reference lines.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "reports/charts/charts.hpp"
#include "reports/charts/svg_canvas.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

namespace {
// Above this many points a series draws invisible hover targets instead of visible dots.
constexpr std::size_t kVisibleMarkerLimit = 60;

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v, bool log) {
    if (!std::isfinite(v) || (log && v <= 0)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};
}  // namespace

Svg line_chart(const LineChart& c) {
  K3SIM_ASSERT(!c.series.empty(), "line chart '" + c.title + "' has no series");
  Range xr, yr;
  for (const auto& s : c.series) {
    K3SIM_ASSERT(s.x.size() == s.y.size(), "line chart '" + c.title + "': series '" + s.name + "' has x and y of different lengths");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      xr.add(s.x[i], c.x_axis.log);
      yr.add(s.y[i], c.y_axis.log);
    }
  }
  K3SIM_ASSERT(!xr.empty() && !yr.empty(), "line chart '" + c.title + "' has no plottable point");
  for (const auto& r : c.references) yr.add(r.value, c.y_axis.log);
  if (!c.y_axis.log) yr.add(0.0, false);  // linear y axes start at zero so slopes are not exaggerated

  detail::SvgCanvas canvas(c.size.width_px, c.size.height_px, "line", c.title);
  std::vector<detail::LegendEntry> legend;
  for (std::size_t s = 0; s < c.series.size(); ++s) legend.push_back({c.series[s].name, detail::palette_colour(s), true});
  const detail::PlotArea area = detail::frame(canvas, c.title, 70, legend);
  const detail::AxisTicks xt = detail::axis_ticks(xr.lo, xr.hi, c.x_axis.log);
  const detail::AxisTicks yt = detail::axis_ticks(yr.lo, yr.hi, c.y_axis.log);
  const Scale xs(xt.lo, xt.hi, area.left, area.right, c.x_axis.log);
  const Scale ys(yt.lo, yt.hi, area.bottom, area.top, c.y_axis.log);
  detail::draw_value_axis_x(canvas, area, xs, xt.ticks, c.x_axis);
  detail::draw_value_axis_y(canvas, area, ys, yt.ticks, c.y_axis);
  detail::draw_references_y(canvas, area, ys, c.references, c.y_axis.unit);

  for (std::size_t s = 0; s < c.series.size(); ++s) {
    const auto& series = c.series[s];
    const std::string& colour = detail::palette_colour(s);
    std::vector<std::pair<double, double>> points;
    for (std::size_t i = 0; i < series.x.size(); ++i) {
      const bool plottable = std::isfinite(series.x[i]) && std::isfinite(series.y[i]) &&
                             (!c.x_axis.log || series.x[i] > 0) && (!c.y_axis.log || series.y[i] > 0);
      if (plottable) points.emplace_back(xs(series.x[i]), ys(series.y[i]));
    }
    canvas.polyline(points, colour, s % 2 == 1 ? R"(stroke-dasharray="7 3")" : "");
    const bool dense = points.size() > kVisibleMarkerLimit;
    std::size_t p = 0;
    for (std::size_t i = 0; i < series.x.size(); ++i) {
      const bool plottable = std::isfinite(series.x[i]) && std::isfinite(series.y[i]) &&
                             (!c.x_axis.log || series.x[i] > 0) && (!c.y_axis.log || series.y[i] > 0);
      if (!plottable) continue;
      const std::string tip = fmt::format("{}: {} = {}, {}", series.name, with_unit(c.x_axis.label, c.x_axis.unit),
                                          display_number(series.x[i]),
                                          detail::tooltip(c.y_axis.label, series.y[i], c.y_axis.unit));
      canvas.mark_circle(points[p].first, points[p].second, dense ? 3.0 : 3.5, colour, tip,
                         dense ? R"(fill-opacity="0")" : "", series.name);
      ++p;
    }
  }
  return std::move(canvas).finish();
}

}  // namespace k3::reports
