#pragma once
// SVG charts drawn by k3sim itself: plain data in (names, units, doubles), one inline <svg> out.
// Every bar, point, cell and interval is a "mark" (class="mark") with a native <title> tooltip giving
// its exact name, value and unit. Colours come from the Okabe-Ito palette (colour-blind safe).
// Programming errors in the data (ragged series, an empty chart) throw core::InternalError.
#include <string>
#include <vector>

namespace k3::reports {

// A rendered chart: the <svg> element and how many data marks it holds.
struct Svg {
  std::string kind;    // "bar", "line", "heatmap", "gantt", "scatter"
  std::string markup;  // one <svg> element, ready to embed
  int marks = 0;
};

struct Axis {
  std::string label;  // "Step time"
  std::string unit;   // "ms"; shown as "Step time (ms)"
  bool log = false;   // log10 scale; values <= 0 are drawn at the bottom of the axis
};

// A horizontal (value-axis) reference line, e.g. the HBM capacity or a noise floor.
struct ReferenceLine {
  std::string label;
  double value = 0;
};

struct ChartSize {
  double width_px = 960;
  double height_px = 360;
};

// --- Bars -------------------------------------------------------------------------------------------
struct BarSeries {
  std::string name;            // legend entry ("compute"); may be empty for a single series
  std::vector<double> values;  // one per category
};

enum class BarLayout { kGrouped, kStacked };
enum class Orientation { kVertical, kHorizontal };

struct BarChart {
  std::string title;
  std::string category_label;           // "Variant"
  std::vector<std::string> categories;  // bars or bar groups
  Axis value_axis;
  std::vector<BarSeries> series;  // one series = a plain bar chart
  BarLayout layout = BarLayout::kGrouped;
  Orientation orientation = Orientation::kVertical;
  std::vector<ReferenceLine> references;
  ChartSize size;
  // Colour of series i, overriding the palette where given and not ""; the palette's i-th colour otherwise.
  std::vector<std::string> series_colours;
};
Svg bar_chart(const BarChart& chart);

// --- Diverging bars ---------------------------------------------------------------------------------
// Signed changes from zero, one horizontal bar each, labelled directly (name on the left, signed value at
// the bar's end) instead of through a legend: what got faster grows left, what got slower right.
struct DivergingBar {
  std::string name;    // "compute: dense GEMM"
  double value = 0;    // signed, in the axis unit
  std::string colour;  // every bar its own colour (reports' family shades)
};

struct DivergingBarChart {
  std::string title;
  Axis value_axis;                 // {"Change", "s"}
  std::string negative_label;      // "faster" (left of zero)
  std::string positive_label;      // "slower"
  std::vector<DivergingBar> bars;  // drawn top to bottom in this order
  double width_px = 960;
};
Svg diverging_bar_chart(const DivergingBarChart& chart);

// --- Lines ------------------------------------------------------------------------------------------
struct LineSeries {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;  // same length as x
};

struct LineChart {
  std::string title;
  Axis x_axis;
  Axis y_axis;
  std::vector<LineSeries> series;
  std::vector<ReferenceLine> references;  // horizontal lines at y = value
  ChartSize size;
};
Svg line_chart(const LineChart& chart);

// --- Heatmap ----------------------------------------------------------------------------------------
struct Heatmap {
  std::string title;
  std::string row_label;  // "Source node"
  std::string column_label;
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  std::vector<double> values;  // row-major, rows.size() x columns.size()
  std::string value_name;      // "Bytes sent"
  std::string value_unit;      // "GiB"
  ChartSize size{960, 560};
};
Svg heatmap(const Heatmap& chart);

// --- Gantt timeline ---------------------------------------------------------------------------------
struct GanttInterval {
  int track = 0;      // index into tracks
  double start = 0;   // in the time axis unit
  double end = 0;
  std::string kind;   // colours and legend: "compute", "all-to-all", ...
  std::string label;  // tooltip text ("layer 12 fwd expert GEMM")
};

struct GanttChart {
  std::string title;
  Axis time_axis;                   // {"Time", "ms"}; log is not allowed
  std::vector<std::string> tracks;  // "rank 0 compute", "rank 0 comm"
  std::vector<GanttInterval> intervals;
  ChartSize size;
};
Svg gantt_chart(const GanttChart& chart);

// --- Scatter with Pareto front ----------------------------------------------------------------------
struct ScatterPoint {
  std::string name;
  double x = 0;
  double y = 0;
};

struct ScatterChart {
  std::string title;
  Axis x_axis;
  Axis y_axis;
  std::vector<ScatterPoint> points;
  bool minimize_x = true;  // which direction is better on each axis, for the front
  bool minimize_y = true;
  ChartSize size;
};
// Indices of the points no other point beats on both axes (ties kept), sorted by x.
std::vector<std::size_t> pareto_front(const ScatterChart& chart);
Svg scatter_chart(const ScatterChart& chart);

}  // namespace k3::reports
