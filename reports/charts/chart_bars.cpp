// Bar charts: plain, grouped and stacked, vertical or horizontal, with optional reference lines.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/charts/charts.hpp"
#include "reports/charts/svg_canvas.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

namespace {

std::string fit_label(const std::string& label, double width_px) {
  const auto max_chars = static_cast<std::size_t>(std::max(width_px / 6.6, 3.0));
  if (label.size() <= max_chars) return label;
  return label.substr(0, max_chars - 1) + "\u2026";
}

void check(const BarChart& c) {
  K3SIM_ASSERT(!c.categories.empty(), "bar chart '" + c.title + "' has no categories");
  K3SIM_ASSERT(!c.series.empty(), "bar chart '" + c.title + "' has no series");
  for (const auto& s : c.series) {
    K3SIM_ASSERT(s.values.size() == c.categories.size(),
                 "bar chart '" + c.title + "': series '" + s.name + "' does not have one value per category");
    for (const double v : s.values) {
      K3SIM_ASSERT(std::isfinite(v), "bar chart '" + c.title + "' holds a non-finite value");
      K3SIM_ASSERT(c.layout != BarLayout::kStacked || v >= 0,
                   "stacked bar chart '" + c.title + "' holds a negative value");
    }
  }
  K3SIM_ASSERT(!(c.value_axis.log && c.layout == BarLayout::kStacked), "stacked bars cannot use a log axis");
}

// Range of bar ends, including zero and the reference lines.
std::pair<double, double> value_range(const BarChart& c) {
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < c.categories.size(); ++i) {
    double stack = 0;
    for (const auto& s : c.series) {
      if (c.layout == BarLayout::kStacked) {
        stack += s.values[i];
        hi = std::max(hi, stack);
      } else {
        lo = std::min(lo, s.values[i]);
        hi = std::max(hi, s.values[i]);
      }
    }
  }
  for (const auto& r : c.references) {
    lo = std::min(lo, r.value);
    hi = std::max(hi, r.value);
  }
  if (c.value_axis.log) {
    double min_pos = hi;
    for (const auto& s : c.series)
      for (const double v : s.values)
        if (v > 0) min_pos = std::min(min_pos, v);
    return {min_pos, hi};
  }
  return {lo, hi};
}

const std::string& colour_of(const BarChart& c, std::size_t s) {
  return s < c.series_colours.size() && !c.series_colours[s].empty() ? c.series_colours[s] : detail::palette_colour(s);
}

}  // namespace

Svg bar_chart(const BarChart& c) {
  check(c);
  const bool horizontal = c.orientation == Orientation::kHorizontal;
  detail::SvgCanvas canvas(c.size.width_px, c.size.height_px, "bar", c.title);
  std::vector<detail::LegendEntry> legend;
  if (c.series.size() > 1 || !c.series.front().name.empty()) {
    for (std::size_t s = 0; s < c.series.size(); ++s) legend.push_back({c.series[s].name, colour_of(c, s)});
  }
  double left = 70;
  if (horizontal) {
    double widest = 0;
    for (const auto& cat : c.categories) widest = std::max(widest, detail::text_width_px(cat));
    left = std::clamp(widest + 40, 70.0, 330.0);  // room for the rotated axis label; a third of a 960 px chart
  }
  const detail::PlotArea area = detail::frame(canvas, c.title, left, legend);
  const auto [lo, hi] = value_range(c);
  const detail::AxisTicks ticks = detail::axis_ticks(lo, hi, c.value_axis.log);
  const Scale value = horizontal ? Scale(ticks.lo, ticks.hi, area.left, area.right, c.value_axis.log)
                                 : Scale(ticks.lo, ticks.hi, area.bottom, area.top, c.value_axis.log);
  if (horizontal) {
    detail::draw_value_axis_x(canvas, area, value, ticks.ticks, c.value_axis);
  } else {
    detail::draw_value_axis_y(canvas, area, value, ticks.ticks, c.value_axis);
  }

  const double n_cat = static_cast<double>(c.categories.size());
  const double band = ((horizontal ? area.bottom - area.top : area.right - area.left)) / n_cat;
  const double band_start = horizontal ? area.top : area.left;
  const double bar_room = band * 0.72;
  const bool grouped = c.layout == BarLayout::kGrouped;
  const double bar_w = grouped ? bar_room / static_cast<double>(c.series.size()) : bar_room;
  const double base = value(c.value_axis.log ? ticks.lo : 0.0);

  for (std::size_t i = 0; i < c.categories.size(); ++i) {
    const double band_lo = band_start + band * static_cast<double>(i) + (band - bar_room) / 2;
    double stack = 0;
    for (std::size_t s = 0; s < c.series.size(); ++s) {
      const double v = c.series[s].values[i];
      const double from = grouped ? base : value(stack);
      const double to = grouped ? value(v) : value(stack + v);
      stack += v;
      const double offset = band_lo + (grouped ? bar_w * static_cast<double>(s) : 0);
      const std::string name = c.series[s].name.empty() ? c.categories[i] : c.categories[i] + " \u00b7 " + c.series[s].name;
      const std::string tip = detail::tooltip(name, v, c.value_axis.unit);
      if (horizontal) {
        canvas.mark_rect(std::min(from, to), offset, std::fabs(to - from), bar_w, colour_of(c, s), tip, c.series[s].name);
      } else {
        canvas.mark_rect(offset, std::min(from, to), bar_w, std::fabs(to - from), colour_of(c, s), tip, c.series[s].name);
      }
    }
    const double centre = band_start + band * (static_cast<double>(i) + 0.5);
    if (horizontal) {
      canvas.text(area.left - 6, centre + 4, fit_label(c.categories[i], area.left - 34), "tick", "end");
    } else {
      canvas.text(centre, area.bottom + 16, fit_label(c.categories[i], band - 4), "tick", "middle");
    }
  }
  if (horizontal) {
    canvas.line(area.left, area.top, area.left, area.bottom, "axis");
    canvas.text(14, (area.top + area.bottom) / 2, c.category_label, "axislabel", "middle", -90);
    detail::draw_references_x(canvas, area, value, c.references, c.value_axis.unit);
  } else {
    canvas.line(area.left, area.bottom, area.right, area.bottom, "axis");
    canvas.text((area.left + area.right) / 2, area.bottom + 34, c.category_label, "axislabel", "middle");
    detail::draw_references_y(canvas, area, value, c.references, c.value_axis.unit);
  }
  return std::move(canvas).finish();
}

}  // namespace k3::reports
