// Chart functions: marks, tooltips, geometry and rejection of malformed data.
#include <gtest/gtest.h>

#include <set>
#include <string>


#include "reports/charts/charts.hpp"
#include "tests/reports/html_scan.hpp"
#include "core/error.hpp"

using namespace k3::reports;

namespace {
int count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (auto p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) ++n;
  return n;
}

// Heights of the <rect class="mark"> elements, in document order.
std::vector<double> mark_heights(const std::string& svg) {
  std::vector<double> out;
  for (const auto& h : k3::test::attribute_values(svg, "<rect class=\"mark\"", "height")) out.push_back(std::stod(h));
  return out;
}
}  // namespace

TEST(Charts, GroupedBarsHaveOneMarkPerValueWithTooltip) {
  BarChart c;
  c.title = "Step time";
  c.categories = {"K3", "k3-448", "K2"};
  c.value_axis = {"Time", "ms", false};
  c.series = {{"compute", {10, 12, 8}}, {"exposed comm", {3, 5, 2}}};
  const Svg svg = bar_chart(c);
  EXPECT_EQ(svg.kind, "bar");
  EXPECT_EQ(svg.marks, 6);
  EXPECT_EQ(count(svg.markup, R"(class="mark")"), 6);
  EXPECT_NE(svg.markup.find("data-marks=\"6\""), std::string::npos);
  EXPECT_NE(svg.markup.find("<title>k3-448 \u00b7 exposed comm: 5 ms</title>"), std::string::npos);
  EXPECT_NE(svg.markup.find("Time (ms)"), std::string::npos);
}

TEST(Charts, StackedBarHeightsAreProportional) {
  BarChart c;
  c.title = "Memory";
  c.categories = {"rank 0"};
  c.value_axis = {"Memory", "GiB", false};
  c.series = {{"weights", {2}}, {"activations", {3}}};
  c.layout = BarLayout::kStacked;
  // Canvas 360 px high: title band 34, x-axis band 44, one legend row 20 + 6 -> plot 34..290 = 256 px.
  // The stack reaches 5 and the ticks 0..5 step 1, so 2 GiB is 2/5 of 256 = 102.4 px and 3 GiB 153.6 px.
  const auto h = mark_heights(bar_chart(c).markup);
  ASSERT_EQ(h.size(), 2u);
  EXPECT_NEAR(h[0], 102.4, 0.06);
  EXPECT_NEAR(h[1], 153.6, 0.06);
}

TEST(Charts, ReferenceLineIsDrawnAndLabelled) {
  BarChart c;
  c.title = "Memory per GPU";
  c.categories = {"a", "b"};
  c.value_axis = {"Memory", "GiB", false};
  c.series = {{"", {40, 70}}};
  c.orientation = Orientation::kHorizontal;
  c.references = {{"HBM", 80}};
  const Svg svg = bar_chart(c);
  EXPECT_EQ(svg.marks, 2);
  EXPECT_EQ(count(svg.markup, R"(class="ref")"), 1);
  EXPECT_NE(svg.markup.find("HBM: 80 GiB"), std::string::npos);
}

TEST(Charts, MalformedBarsThrow) {
  BarChart c;
  c.title = "bad";
  c.categories = {"a", "b"};
  c.series = {{"s", {1}}};
  EXPECT_THROW(bar_chart(c), k3::core::InternalError);
  c.series = {{"s", {1, -1}}};
  c.layout = BarLayout::kStacked;
  EXPECT_THROW(bar_chart(c), k3::core::InternalError);
  c.categories.clear();
  EXPECT_THROW(bar_chart(c), k3::core::InternalError);
}

TEST(Charts, LineOnLogAxisSkipsNonPositivePoints) {
  LineChart c;
  c.title = "MaxVio";
  c.x_axis = {"Step", "", false};
  c.y_axis = {"MaxVio", "", true};
  c.series = {{"QB", {1, 2, 3, 4}, {0.5, 0.1, 0.0, 0.05}}, {"sign-SGD", {1, 2, 3, 4}, {0.9, 0.6, 0.4, 0.3}}};
  c.references = {{"noise floor", 0.02}};
  const Svg svg = line_chart(c);
  // 4 + 4 points, one of them 0 on a log axis: 7 marks.
  EXPECT_EQ(svg.marks, 7);
  EXPECT_EQ(count(svg.markup, "<polyline"), 2);
  EXPECT_NE(svg.markup.find("noise floor: 0.02"), std::string::npos);
  c.series[0].x.pop_back();
  EXPECT_THROW(line_chart(c), k3::core::InternalError);
}

TEST(Charts, HeatmapHasACellPerValueAndAColourLegend) {
  Heatmap h;
  h.title = "All-to-all bytes";
  h.rows = {"n0", "n1"};
  h.columns = {"n0", "n1", "n2"};
  h.values = {0, 1, 2, 3, 4, 5};
  h.value_name = "Bytes";
  h.value_unit = "GiB";
  const Svg svg = heatmap(h);
  EXPECT_EQ(svg.marks, 6);
  EXPECT_NE(svg.markup.find("<title>n1 \u2192 n2: 5 GiB</title>"), std::string::npos);
  // The minimum is viridis' first anchor, the maximum its last.
  EXPECT_NE(svg.markup.find(R"(fill="#440154")"), std::string::npos);
  EXPECT_NE(svg.markup.find(R"(fill="#fde725")"), std::string::npos);
  h.values.pop_back();
  EXPECT_THROW(heatmap(h), k3::core::InternalError);
}

TEST(Charts, GanttColoursByKindAndRejectsUnknownTracks) {
  GanttChart g;
  g.title = "Pipeline";
  g.time_axis = {"Time", "ms", false};
  g.tracks = {"rank 0", "rank 1"};
  g.intervals = {{0, 0, 1, "compute", "F0"}, {1, 1, 2, "compute", "F0"}, {0, 1, 1.5, "all-to-all", "dispatch"}};
  const Svg svg = gantt_chart(g);
  EXPECT_EQ(svg.marks, 3);
  EXPECT_NE(svg.markup.find("dispatch [all-to-all]: 1 to 1.5 ms (0.5 ms)"), std::string::npos);
  g.intervals.push_back({2, 0, 1, "compute", "ghost"});
  EXPECT_THROW(gantt_chart(g), k3::core::InternalError);
}

TEST(Charts, ParetoFrontKeepsUndominatedPoints) {
  ScatterChart s;
  s.title = "Variants";
  s.x_axis = {"Step time", "s", false};
  s.y_axis = {"Cost", "$", false};
  // (3,3) is beaten by (2,2); (2,6) by (1,5). Front by x: (1,5), (2,2), (4,1).
  s.points = {{"a", 1, 5}, {"b", 2, 2}, {"c", 3, 3}, {"d", 4, 1}, {"e", 2, 6}};
  EXPECT_EQ(pareto_front(s), (std::vector<std::size_t>{0, 1, 3}));
  const Svg svg = scatter_chart(s);
  EXPECT_EQ(svg.marks, 5);
  EXPECT_EQ(count(svg.markup, "(Pareto front)"), 3);
  // Maximising y instead: (1,5) and (2,6) remain; everything else has lower y at higher x.
  s.minimize_y = false;
  EXPECT_EQ(pareto_front(s), (std::vector<std::size_t>{0, 4}));
}

TEST(Charts, DivergingBarsGrowBothWaysFromZeroAndAreLabelledDirectly) {
  DivergingBarChart c;
  c.title = "b minus a";
  c.value_axis = {"Change", "s", false};
  c.negative_label = "faster";
  c.positive_label = "slower";
  c.bars = {{"dense GEMM", -1.0, "#08306B"}, {"all-to-all combine", 2.5, "#A63603"}};
  const auto svg = diverging_bar_chart(c);
  EXPECT_EQ(svg.kind, "diverging");
  EXPECT_EQ(svg.marks, 2);
  // Widths proportional to |change|: the +2.5 s bar is 2.5 times the -1 s one.
  const auto widths = k3::test::attribute_values(svg.markup, "<rect class=\"mark\"", "width");
  ASSERT_EQ(widths.size(), 2u);
  EXPECT_NEAR(std::stod(widths[1]) / std::stod(widths[0]), 2.5, 0.05);
  // The negative bar ends where the positive one starts: both start or end at the zero line.
  const auto xs = k3::test::attribute_values(svg.markup, "<rect class=\"mark\"", "x");
  EXPECT_NEAR(std::stod(xs[0]) + std::stod(widths[0]), std::stod(xs[1]), 0.15);
  // Direct labels: every name and signed value is text in the chart, no legend needed.
  EXPECT_NE(svg.markup.find(">dense GEMM</text>"), std::string::npos);
  EXPECT_NE(svg.markup.find(">\u22121 s</text>"), std::string::npos);
  EXPECT_NE(svg.markup.find(">+2.5 s</text>"), std::string::npos);
  EXPECT_EQ(count(svg.markup, "data-series=\"dense GEMM\""), 1);
  c.bars.clear();
  EXPECT_THROW(diverging_bar_chart(c), k3::core::InternalError);
}

TEST(Charts, SeriesColoursOverrideThePaletteAndThePaletteHasSixteenDistinct) {
  BarChart c;
  c.title = "Stack";
  c.categories = {"a"};
  c.value_axis = {"Time", "s", false};
  c.layout = BarLayout::kStacked;
  for (int s = 0; s < 16; ++s) c.series.push_back({"s" + std::to_string(s), {1.0}});
  const auto fills = k3::test::attribute_values(bar_chart(c).markup, "<rect class=\"mark\"", "fill");
  EXPECT_EQ(std::set<std::string>(fills.begin(), fills.end()).size(), 16u) << "no two series share a colour";
  c.series_colours = {"#123456"};
  EXPECT_EQ(k3::test::attribute_values(bar_chart(c).markup, "<rect class=\"mark\"", "fill").front(), "#123456");
}
