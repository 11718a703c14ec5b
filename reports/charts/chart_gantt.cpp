// Gantt timeline: one row per track (a rank's compute or communication stream), intervals coloured by kind.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/charts/charts.hpp"
#include "reports/charts/svg_canvas.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

Svg gantt_chart(const GanttChart& c) {
  K3SIM_ASSERT(!c.tracks.empty(), "timeline '" + c.title + "' has no tracks");
  K3SIM_ASSERT(!c.intervals.empty(), "timeline '" + c.title + "' has no intervals");
  K3SIM_ASSERT(!c.time_axis.log, "a timeline cannot use a log time axis");
  // Kinds in order of first appearance give stable colours and legend order.
  std::vector<std::string> kinds;
  double t_lo = c.intervals.front().start, t_hi = c.intervals.front().end;
  for (const auto& iv : c.intervals) {
    K3SIM_ASSERT(iv.track >= 0 && static_cast<std::size_t>(iv.track) < c.tracks.size(),
                 "timeline '" + c.title + "': interval on a track that does not exist");
    K3SIM_ASSERT(std::isfinite(iv.start) && std::isfinite(iv.end) && iv.end >= iv.start,
                 "timeline '" + c.title + "': interval ends before it starts");
    if (std::find(kinds.begin(), kinds.end(), iv.kind) == kinds.end()) kinds.push_back(iv.kind);
    t_lo = std::min(t_lo, iv.start);
    t_hi = std::max(t_hi, iv.end);
  }
  std::vector<detail::LegendEntry> legend;
  for (std::size_t k = 0; k < kinds.size(); ++k) legend.push_back({kinds[k], detail::palette_colour(k)});

  detail::SvgCanvas canvas(c.size.width_px, c.size.height_px, "gantt", c.title);
  double widest = 0;
  for (const auto& t : c.tracks) widest = std::max(widest, detail::text_width_px(t));
  const detail::PlotArea area = detail::frame(canvas, c.title, std::clamp(widest + 20, 70.0, 220.0), legend);
  const detail::AxisTicks ticks = detail::axis_ticks(std::min(t_lo, 0.0), t_hi, false);
  const Scale xs(ticks.lo, ticks.hi, area.left, area.right, false);
  detail::draw_value_axis_x(canvas, area, xs, ticks.ticks, c.time_axis);

  const double row = (area.bottom - area.top) / static_cast<double>(c.tracks.size());
  for (std::size_t t = 0; t < c.tracks.size(); ++t) {
    const double y = area.top + row * static_cast<double>(t);
    if (t % 2 == 1) canvas.rect(area.left, y, area.right - area.left, row, "#f4f4f4");
    canvas.text(area.left - 6, y + row / 2 + 4, c.tracks[t], "tick", "end");
  }
  const std::string unit = c.time_axis.unit.empty() ? "" : " " + c.time_axis.unit;
  for (const auto& iv : c.intervals) {
    const auto k = static_cast<std::size_t>(std::find(kinds.begin(), kinds.end(), iv.kind) - kinds.begin());
    const double x0 = xs(iv.start);
    // Very short intervals stay visible (and hoverable) at a minimum width of half a pixel.
    const double w = std::max(xs(iv.end) - x0, 0.5);
    const double y = area.top + row * iv.track + row * 0.15;
    canvas.mark_rect(x0, y, w, row * 0.7, detail::palette_colour(k),
                     fmt::format("{} [{}]: {} to {}{} ({}{})", iv.label, iv.kind, display_number(iv.start),
                                 display_number(iv.end), unit, display_number(iv.end - iv.start), unit),
                     iv.kind);
  }
  canvas.line(area.left, area.top, area.left, area.bottom, "axis");
  return std::move(canvas).finish();
}

}  // namespace k3::reports
