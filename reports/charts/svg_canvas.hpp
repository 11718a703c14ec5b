#pragma once
// Internal to reports/: an SVG element writer used by the chart functions, plus the shared pieces of a
// chart frame (title, axes with gridlines, legend). Coordinates are written with one decimal to keep
// large charts small.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/charts/charts.hpp"
#include "reports/charts/scale.hpp"

namespace k3::reports::detail {

// Okabe & Ito (2008) colour-blind-safe palette, black replaced by grey, then eight darker variants of the
// same hues: sixteen distinct colours before it cycles.
const std::string& palette_colour(std::size_t index);

// Families of one hue for step-time causes: "compute" blues, "communication" oranges, anything else
// ("bubble", "optimizer") greys; `index` picks the shade within the family (distinct up to 14, 8 and 6).
const std::string& family_colour(std::string_view family, std::size_t index);

class SvgCanvas {
 public:
  SvgCanvas(double width_px, double height_px, std::string kind, std::string title);

  // A data mark: counted, class="mark", with a <title> tooltip.
  // `series` (data-series) names what the colour stands for, so a test can check that no two series of a
  // chart share one.
  void mark_rect(double x, double y, double w, double h, std::string_view fill, std::string_view tooltip,
                 std::string_view series = {});
  void mark_circle(double cx, double cy, double r, std::string_view fill, std::string_view tooltip,
                   std::string_view extra_attrs = {}, std::string_view series = {});
  // Decoration (not counted).
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra_attrs = {});
  void line(double x1, double y1, double x2, double y2, std::string_view cls);
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                std::string_view extra_attrs = {});
  void text(double x, double y, std::string_view content, std::string_view cls = {},
            std::string_view anchor = "start", double rotate_deg = 0);
  Svg finish() &&;

  double width() const { return width_; }
  double height() const { return height_; }

 private:
  double width_, height_;
  std::string kind_;
  std::string body_;
  int marks_ = 0;
};

struct LegendEntry {
  std::string name;
  std::string colour;
  bool line = false;  // a line swatch instead of a square
};

// Height a legend of these entries takes when wrapped into `width_px`.
double legend_height(const std::vector<LegendEntry>& entries, double width_px);
void draw_legend(SvgCanvas& canvas, const std::vector<LegendEntry>& entries, double x, double y, double width_px);

// Approximate rendered width of text at the chart font size (12 px sans-serif).
double text_width_px(std::string_view text);

// Plot area inside the canvas.
struct PlotArea {
  double left, top, right, bottom;
};

// Draws the chart title and reserves room for axes labels and the legend below the plot.
PlotArea frame(SvgCanvas& canvas, std::string_view title, double left_margin_px,
               const std::vector<LegendEntry>& legend);

// Value range of the data including zero (for bars) or not, padded to nice ticks; returns scale + ticks.
struct AxisTicks {
  double lo, hi;
  std::vector<double> ticks;
};
AxisTicks axis_ticks(double data_lo, double data_hi, bool log);

void draw_value_axis_y(SvgCanvas& canvas, const PlotArea& area, const Scale& scale, const std::vector<double>& ticks,
                       const Axis& axis);
void draw_value_axis_x(SvgCanvas& canvas, const PlotArea& area, const Scale& scale, const std::vector<double>& ticks,
                       const Axis& axis);
void draw_references_y(SvgCanvas& canvas, const PlotArea& area, const Scale& scale,
                       const std::vector<ReferenceLine>& refs, std::string_view unit);
void draw_references_x(SvgCanvas& canvas, const PlotArea& area, const Scale& scale,
                       const std::vector<ReferenceLine>& refs, std::string_view unit);

// "name: value unit" for tooltips.
std::string tooltip(std::string_view name, double value, std::string_view unit);

}  // namespace k3::reports::detail
