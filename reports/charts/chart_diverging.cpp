// Diverging bars: signed changes from a zero line, each bar labelled directly with its name and value.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reports/charts/charts.hpp"
#include "reports/charts/svg_canvas.hpp"
#include "reports/text.hpp"

namespace k3::reports {

namespace {
constexpr double kRow = 24;
constexpr double kTop = 58;     // title, then the "faster | slower" heads
constexpr double kBottom = 46;  // tick labels and the axis label
constexpr double kValueRoom = 0.22;  // share of the value range kept free at each end for the value labels

std::string signed_label(double v, const std::string& unit) {
  return (v > 0 ? "+" : v < 0 ? "\u2212" : "") + display_number(std::fabs(v), 3) + (unit.empty() ? "" : " " + unit);
}
}  // namespace

Svg diverging_bar_chart(const DivergingBarChart& c) {
  K3SIM_ASSERT(!c.bars.empty(), "diverging chart '" + c.title + "' has no bars");
  K3SIM_ASSERT(!c.value_axis.log, "a diverging chart cannot use a log axis");
  double lo = 0, hi = 0, widest = 0;
  for (const auto& b : c.bars) {
    K3SIM_ASSERT(std::isfinite(b.value), "diverging chart '" + c.title + "' holds a non-finite value");
    lo = std::min(lo, b.value);
    hi = std::max(hi, b.value);
    widest = std::max(widest, detail::text_width_px(b.name));
  }
  const double span = std::max(hi - lo, 1e-12);
  const double height = kTop + kRow * static_cast<double>(c.bars.size()) + kBottom;
  detail::SvgCanvas canvas(c.width_px, std::max(height, 120.0), "diverging", c.title);
  canvas.text(12, 20, c.title, "title");
  const detail::PlotArea area{std::clamp(widest + 18, 120.0, 330.0), kTop, c.width_px - 24, height - kBottom};
  const detail::AxisTicks ticks =
      detail::axis_ticks(lo - (lo < 0 ? kValueRoom * span : 0), hi + (hi > 0 ? kValueRoom * span : 0), false);
  const Scale xs(ticks.lo, ticks.hi, area.left, area.right, false);
  detail::draw_value_axis_x(canvas, area, xs, ticks.ticks, c.value_axis);
  const double zero = xs(0);
  if (!c.negative_label.empty()) canvas.text(zero - 8, kTop - 8, "\u2190 " + c.negative_label, "axislabel", "end");
  if (!c.positive_label.empty()) canvas.text(zero + 8, kTop - 8, c.positive_label + " \u2192", "axislabel", "start");
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const auto& b = c.bars[i];
    const double y = area.top + kRow * static_cast<double>(i);
    const double end = xs(b.value);
    const std::string value = signed_label(b.value, c.value_axis.unit);
    canvas.text(area.left - 6, y + kRow / 2 + 4, b.name, "tick", "end");
    canvas.mark_rect(std::min(zero, end), y + 4, std::max(std::fabs(end - zero), 1.0), kRow - 8, b.colour,
                     b.name + ": " + value, b.name);
    canvas.text(b.value < 0 ? end - 5 : end + 5, y + kRow / 2 + 4, value, "value", b.value < 0 ? "end" : "start");
  }
  canvas.line(zero, area.top - 2, zero, area.bottom, "axis");
  return std::move(canvas).finish();
}

}  // namespace k3::reports
