// Writes a report holding every chart kind, cards, tables and tabs, so the browser test can check each
// renderer in Chromium independently of which simulator commands exist. Usage: report_gallery out.html
// The data are small closed-form series (no simulator results): e.g. the MaxVio curves are a^step.
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

#include "reports/report.hpp"

using namespace k3::reports;

namespace {
void bars(Report& r) {
  Section& s = r.add_section("bars", "Bar charts");
  s.cards({{"Step time", 12.5, "s", "", "grouped and stacked bars below"}, {"MFU", 41.2, "%", "", ""}});
  BarChart grouped;
  grouped.title = "Grouped bars";
  grouped.category_label = "Variant";
  grouped.categories = {"K3 top-16/896", "top-8/448"};
  grouped.value_axis = {"Time", "ms", false};
  grouped.series = {{"compute", {10, 12}}, {"exposed comm", {3, 5}}, {"bubble", {1, 1.5}}};
  s.chart(bar_chart(grouped), "Grouped vertical bars.");
  BarChart stacked = grouped;
  stacked.title = "Stacked horizontal bars with a reference line";
  stacked.layout = BarLayout::kStacked;
  stacked.orientation = Orientation::kHorizontal;
  stacked.references = {{"budget", 18}};
  s.chart(bar_chart(stacked), "Stacked horizontal bars.");
}

void lines(Report& r) {
  Section& s = r.add_section("lines", "Line chart");
  LineChart c;
  c.title = "Geometric decay on a log axis";
  c.x_axis = {"Step", "", false};
  c.y_axis = {"MaxVio", "", true};
  for (const double a : {0.5, 0.8, 0.95}) {
    LineSeries series{"a = " + std::to_string(a).substr(0, 4), {}, {}};
    for (int step = 0; step <= 40; ++step) {
      series.x.push_back(step);
      series.y.push_back(std::pow(a, step));
    }
    c.series.push_back(series);
  }
  c.references = {{"floor", 1e-3}};
  s.chart(line_chart(c));
}

void matrix(Report& r) {
  Section& s = r.add_section("heatmap", "Heatmap");
  Heatmap h;
  h.title = "|i - j| on 8 x 8";
  h.row_label = "Source";
  h.column_label = "Destination";
  for (int i = 0; i < 8; ++i) {
    h.rows.push_back("n" + std::to_string(i));
    h.columns.push_back("n" + std::to_string(i));
    for (int j = 0; j < 8; ++j) h.values.push_back(std::abs(i - j));
  }
  h.value_name = "Distance";
  h.value_unit = "hops";
  s.chart(heatmap(h));
}

void timeline(Report& r) {
  Section& s = r.add_section("timeline", "Timeline");
  GanttChart g;
  g.title = "Two streams";
  g.time_axis = {"Time", "ms", false};
  g.tracks = {"rank 0 compute", "rank 0 comm", "rank 1 compute", "rank 1 comm"};
  for (int k = 0; k < 6; ++k) {
    const double t = k * 2.0;
    g.intervals.push_back({0, t, t + 1.5, "compute", "op " + std::to_string(k)});
    g.intervals.push_back({1, t + 1.5, t + 2.2, "all-to-all", "a2a " + std::to_string(k)});
    g.intervals.push_back({2, t + 0.5, t + 2.0, "compute", "op " + std::to_string(k)});
    g.intervals.push_back({3, t + 2.0, t + 2.5, "all-reduce", "ar " + std::to_string(k)});
  }
  s.chart(gantt_chart(g));
}

void pareto(Report& r) {
  Section& s = r.add_section("pareto", "Scatter and tables");
  ScatterChart c;
  c.title = "x against 1/x";
  c.x_axis = {"Step time", "s", false};
  c.y_axis = {"Cost", "$/Mtok", false};
  for (int i = 1; i <= 8; ++i) c.points.push_back({"v" + std::to_string(i), double(i), 8.0 / i + (i % 3)});
  Blocks chart_tab, table_tab;
  chart_tab.chart(scatter_chart(c));
  Table t({{"Variant", ""}, {"Step time", "s"}, {"Cost", "$/Mtok"}});
  for (const auto& p : c.points) t.add_row({Cell::of_text(p.name), Cell::of_number(p.x), Cell::of_number(p.y)});
  table_tab.table(t);
  s.tabs({{"Chart", chart_tab}, {"Table", table_tab}});
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: report_gallery out.html\n");
    return 2;
  }
  try {
    Report r("k3sim chart gallery", "Every renderer once, on closed-form data");
    bars(r);
    lines(r);
    matrix(r);
    timeline(r);
    pareto(r);
    r.add_run_info({"report_gallery", "k3sim test", std::nullopt, "", "", {{"Palette", "Okabe-Ito", "Okabe & Ito (2008)"}}});
    r.write_html(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "report_gallery: %s\n", e.what());
    return 1;
  }
  return 0;
}
