// Heatmap: a matrix of cells coloured on a sequential viridis scale, with a colour legend.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "reports/charts/charts.hpp"
#include "reports/charts/svg_canvas.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

namespace {
constexpr std::size_t kMaxCells = 256 * 256;  // beyond this the caller should aggregate (node x node)
constexpr double kLegendWidth = 96;
constexpr int kLegendSteps = 24;

struct Rgb {
  double r, g, b;
};

// Viridis (perceptually uniform, readable with colour-vision deficiency), five anchors of matplotlib's map.
Rgb viridis(double t) {
  static constexpr std::array<Rgb, 5> kAnchors{{{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  t = std::clamp(t, 0.0, 1.0) * (kAnchors.size() - 1);
  const auto i = std::min(static_cast<std::size_t>(t), kAnchors.size() - 2);
  const double f = t - static_cast<double>(i);
  const Rgb& a = kAnchors[i];
  const Rgb& b = kAnchors[i + 1];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

std::string hex(const Rgb& c) {
  return fmt::format("#{:02x}{:02x}{:02x}", static_cast<int>(std::lround(c.r)), static_cast<int>(std::lround(c.g)),
                     static_cast<int>(std::lround(c.b)));
}

// Show every k-th label so that labels do not overlap.
std::size_t label_stride(std::size_t count, double room_px, double per_label_px) {
  const double fits = std::max(room_px / per_label_px, 1.0);
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(static_cast<double>(count) / fits)));
}
}  // namespace

Svg heatmap(const Heatmap& c) {
  const std::size_t nr = c.rows.size();
  const std::size_t nc = c.columns.size();
  K3SIM_ASSERT(nr > 0 && nc > 0, "heatmap '" + c.title + "' is empty");
  K3SIM_ASSERT(c.values.size() == nr * nc, "heatmap '" + c.title + "' needs rows x columns values");
  K3SIM_ASSERT(nr * nc <= kMaxCells, "heatmap '" + c.title + "' has too many cells; aggregate first");
  double lo = c.values.front(), hi = c.values.front();
  for (const double v : c.values) {
    K3SIM_ASSERT(std::isfinite(v), "heatmap '" + c.title + "' holds a non-finite value");
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const double span = hi > lo ? hi - lo : 1.0;

  detail::SvgCanvas canvas(c.size.width_px, c.size.height_px, "heatmap", c.title);
  double widest = 0;
  for (const auto& r : c.rows) widest = std::max(widest, detail::text_width_px(r));
  const double left = std::clamp(widest + 34, 70.0, 220.0);
  detail::PlotArea area = detail::frame(canvas, c.title, left, {});
  area.right -= kLegendWidth;
  const double cw = (area.right - area.left) / static_cast<double>(nc);
  const double ch = (area.bottom - area.top) / static_cast<double>(nr);
  const bool print_values = cw >= 44 && ch >= 18;
  const std::string unit_suffix = c.value_unit.empty() ? "" : " " + c.value_unit;

  for (std::size_t i = 0; i < nr; ++i) {
    for (std::size_t j = 0; j < nc; ++j) {
      const double v = c.values[i * nc + j];
      const double t = (v - lo) / span;
      const double x = area.left + cw * static_cast<double>(j);
      const double y = area.top + ch * static_cast<double>(i);
      canvas.mark_rect(x, y, cw, ch, hex(viridis(t)),
                       fmt::format("{} \u2192 {}: {}{}", c.rows[i], c.columns[j], display_number(v), unit_suffix));
      if (print_values) canvas.text(x + cw / 2, y + ch / 2 + 4, display_number(v, 3), t > 0.6 ? "cell dark" : "cell", "middle");
    }
  }
  const std::size_t rs = label_stride(nr, area.bottom - area.top, 14);
  for (std::size_t i = 0; i < nr; i += rs)
    canvas.text(area.left - 6, area.top + ch * (static_cast<double>(i) + 0.5) + 4, c.rows[i], "tick", "end");
  const std::size_t cs = label_stride(nc, area.right - area.left, 40);
  for (std::size_t j = 0; j < nc; j += cs)
    canvas.text(area.left + cw * (static_cast<double>(j) + 0.5), area.bottom + 16, c.columns[j], "tick", "middle");
  canvas.text((area.left + area.right) / 2, area.bottom + 34, c.column_label, "axislabel", "middle");
  canvas.text(14, (area.top + area.bottom) / 2, c.row_label, "axislabel", "middle", -90);

  // Colour legend: a vertical ramp from the maximum (top) to the minimum (bottom).
  const double lx = area.right + 18;
  const double ramp_h = std::min(area.bottom - area.top, 220.0);
  const double step_h = ramp_h / kLegendSteps;
  for (int k = 0; k < kLegendSteps; ++k) {
    const double t = 1.0 - (k + 0.5) / kLegendSteps;
    canvas.rect(lx, area.top + step_h * k, 14, step_h + 0.5, hex(viridis(t)));
  }
  canvas.text(lx + 20, area.top + 10, tick_label(hi), "tick");
  canvas.text(lx + 20, area.top + ramp_h / 2 + 4, tick_label((lo + hi) / 2), "tick");
  canvas.text(lx + 20, area.top + ramp_h, tick_label(lo), "tick");
  canvas.text(canvas.width() - 6, area.top + ramp_h + 18, with_unit(c.value_name, c.value_unit), "legend", "end");
  return std::move(canvas).finish();
}

}  // namespace k3::reports
