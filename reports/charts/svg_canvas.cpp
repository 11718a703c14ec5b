#include "reports/charts/svg_canvas.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports::detail {

namespace {
constexpr double kTitleBand = 34;    // title baseline at 20 px
constexpr double kXAxisBand = 44;    // tick labels and the axis label under the plot
constexpr double kRightMargin = 24;
constexpr double kLegendRow = 20;
constexpr double kSwatch = 12;

std::string px(double v) { return fmt::format("{:.1f}", v); }
}  // namespace

const std::string& palette_colour(std::size_t index) {
  // Okabe, M. & Ito, K. (2008) "Color Universal Design": blue, orange, bluish green, vermillion,
  // sky blue, reddish purple, yellow, grey.
  // sky blue, reddish purple, yellow, grey; then darker shades of the same hues.
  static const std::array<std::string, 16> kPalette{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7",
                                                    "#F0E442", "#7F7F7F", "#003F63", "#8A5F00", "#005A42", "#7F3800",
                                                    "#2A6F9B", "#8C3F6B", "#A39600", "#3F3F3F"};
  return kPalette[index % kPalette.size()];
}

const std::string& family_colour(std::string_view family, std::size_t index) {
  // ColorBrewer (Brewer, colorbrewer2.org) Blues, Oranges and Greys, dark to light, interleaved so that
  // neighbours in a stack differ most; the lightest shades are left out (too close to the page).
  static const std::array<std::string, 14> kBlues{"#08306B", "#4292C6", "#08519C", "#6BAED6", "#2171B5",
                                                  "#9ECAE1", "#163E7A", "#5A9BD0", "#0B63A8", "#82BCE0",
                                                  "#27548A", "#A6CEE8", "#3B75AF", "#0E4C8A"};
  static const std::array<std::string, 8> kOranges{"#A63603", "#FD8D3C", "#D94801", "#FDAE6B",
                                                   "#7F2704", "#F16913", "#C04A00", "#E6751A"};
  static const std::array<std::string, 6> kGreys{"#525252", "#969696", "#252525", "#737373", "#BDBDBD", "#3A3A3A"};
  if (family == "compute") return kBlues[index % kBlues.size()];
  if (family == "communication") return kOranges[index % kOranges.size()];
  return kGreys[index % kGreys.size()];
}

SvgCanvas::SvgCanvas(double width_px, double height_px, std::string kind, std::string title)
    : width_(width_px), height_(height_px), kind_(std::move(kind)) {
  K3SIM_ASSERT(width_px > 100 && height_px > 100, "a chart needs at least 100 x 100 px");
  body_ += fmt::format("<title>{}</title>", escape_html(title));
}

namespace {
std::string series_attr(std::string_view series) {
  return series.empty() ? std::string{} : fmt::format(R"( data-series="{}")", escape_html(series));
}
}  // namespace

void SvgCanvas::mark_rect(double x, double y, double w, double h, std::string_view fill, std::string_view tip,
                          std::string_view series) {
  body_ += fmt::format(R"(<rect class="mark" x="{}" y="{}" width="{}" height="{}" fill="{}"{}><title>{}</title></rect>)",
                       px(x), px(y), px(std::max(w, 0.0)), px(std::max(h, 0.0)), fill, series_attr(series),
                       escape_html(tip));
  ++marks_;
}

void SvgCanvas::mark_circle(double cx, double cy, double r, std::string_view fill, std::string_view tip,
                            std::string_view extra_attrs, std::string_view series) {
  body_ += fmt::format(R"(<circle class="mark" cx="{}" cy="{}" r="{}" fill="{}"{}{}{}><title>{}</title></circle>)",
                       px(cx), px(cy), px(r), fill, extra_attrs.empty() ? "" : " ", extra_attrs, series_attr(series),
                       escape_html(tip));
  ++marks_;
}

void SvgCanvas::rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra_attrs) {
  body_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"{}{}/>)", px(x), px(y),
                       px(std::max(w, 0.0)), px(std::max(h, 0.0)), fill, extra_attrs.empty() ? "" : " ", extra_attrs);
}

void SvgCanvas::line(double x1, double y1, double x2, double y2, std::string_view cls) {
  body_ += fmt::format(R"(<line class="{}" x1="{}" y1="{}" x2="{}" y2="{}"/>)", cls, px(x1), px(y1), px(x2), px(y2));
}

void SvgCanvas::polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                         std::string_view extra_attrs) {
  std::string pts;
  pts.reserve(points.size() * 12);
  for (const auto& [x, y] : points) {
    if (!pts.empty()) pts += ' ';
    pts += px(x) + "," + px(y);
  }
  body_ += fmt::format(R"(<polyline fill="none" stroke="{}" stroke-width="2" points="{}"{}{}/>)", stroke, pts,
                       extra_attrs.empty() ? "" : " ", extra_attrs);
}

void SvgCanvas::text(double x, double y, std::string_view content, std::string_view cls, std::string_view anchor,
                     double rotate_deg) {
  std::string attrs = fmt::format(R"(x="{}" y="{}")", px(x), px(y));
  if (!cls.empty()) attrs += fmt::format(R"( class="{}")", cls);
  if (anchor != "start") attrs += fmt::format(R"( text-anchor="{}")", anchor);
  if (rotate_deg != 0) attrs += fmt::format(R"~( transform="rotate({} {} {})")~", rotate_deg, px(x), px(y));
  body_ += fmt::format("<text {}>{}</text>", attrs, escape_html(content));
}

Svg SvgCanvas::finish() && {
  Svg out;
  out.kind = kind_;
  out.marks = marks_;
  out.markup = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="{}" data-marks="{}" viewBox="0 0 {} {}" width="{}" height="{}" role="img">{}</svg>)",
      kind_, marks_, px(width_), px(height_), std::lround(width_), std::lround(height_), body_);
  return out;
}

double text_width_px(std::string_view text) { return 6.6 * static_cast<double>(text.size()); }

double legend_height(const std::vector<LegendEntry>& entries, double width_px) {
  if (entries.empty()) return 0;
  int rows = 1;
  double x = 0;
  for (const auto& e : entries) {
    const double w = kSwatch + 6 + text_width_px(e.name) + 18;
    if (x > 0 && x + w > width_px) {
      ++rows;
      x = 0;
    }
    x += w;
  }
  return rows * kLegendRow + 6;
}

void draw_legend(SvgCanvas& canvas, const std::vector<LegendEntry>& entries, double x0, double y0, double width_px) {
  double x = 0;
  double y = y0 + 6;
  for (const auto& e : entries) {
    const double w = kSwatch + 6 + text_width_px(e.name) + 18;
    if (x > 0 && x + w > width_px) {
      x = 0;
      y += kLegendRow;
    }
    if (e.line) {
      canvas.rect(x0 + x, y + kSwatch / 2 - 1.5, kSwatch, 3, e.colour);
    } else {
      canvas.rect(x0 + x, y, kSwatch, kSwatch, e.colour);
    }
    canvas.text(x0 + x + kSwatch + 6, y + 10.5, e.name, "legend");
    x += w;
  }
}

PlotArea frame(SvgCanvas& canvas, std::string_view title, double left_margin_px,
               const std::vector<LegendEntry>& legend) {
  canvas.text(12, 20, title, "title");
  const double legend_w = canvas.width() - left_margin_px - kRightMargin;
  const double legend_h = legend_height(legend, legend_w);
  PlotArea area{left_margin_px, kTitleBand, canvas.width() - kRightMargin,
                canvas.height() - kXAxisBand - legend_h};
  K3SIM_ASSERT(area.bottom - area.top > 40, "chart too small for its legend");
  draw_legend(canvas, legend, left_margin_px, canvas.height() - legend_h - 2, legend_w);
  return area;
}

AxisTicks axis_ticks(double data_lo, double data_hi, bool log) {
  if (log) {
    const double lo = data_lo > 0 ? data_lo : (data_hi > 0 ? data_hi * 1e-3 : 1.0);
    const double hi = data_hi > lo ? data_hi : lo * 10;
    auto ticks = log_ticks(lo, hi);
    return {ticks.front(), ticks.back(), std::move(ticks)};
  }
  auto ticks = nice_ticks(data_lo, data_hi, 5);
  return {ticks.front(), ticks.back(), std::move(ticks)};
}

void draw_value_axis_y(SvgCanvas& canvas, const PlotArea& area, const Scale& scale, const std::vector<double>& ticks,
                       const Axis& axis) {
  for (const double t : ticks) {
    const double y = scale(t);
    canvas.line(area.left, y, area.right, y, "grid");
    canvas.text(area.left - 6, y + 4, tick_label(t), "tick", "end");
  }
  canvas.line(area.left, area.top, area.left, area.bottom, "axis");
  const double mid = (area.top + area.bottom) / 2;
  canvas.text(14, mid, with_unit(axis.label, axis.unit), "axislabel", "middle", -90);
}

void draw_value_axis_x(SvgCanvas& canvas, const PlotArea& area, const Scale& scale, const std::vector<double>& ticks,
                       const Axis& axis) {
  for (const double t : ticks) {
    const double x = scale(t);
    canvas.line(x, area.top, x, area.bottom, "grid");
    canvas.text(x, area.bottom + 16, tick_label(t), "tick", "middle");
  }
  canvas.line(area.left, area.bottom, area.right, area.bottom, "axis");
  canvas.text((area.left + area.right) / 2, area.bottom + 34, with_unit(axis.label, axis.unit), "axislabel",
              "middle");
}

void draw_references_y(SvgCanvas& canvas, const PlotArea& area, const Scale& scale,
                       const std::vector<ReferenceLine>& refs, std::string_view unit) {
  // Labels alternate above and below their lines so that close references stay readable.
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const double y = scale(refs[i].value);
    canvas.line(area.left, y, area.right, y, "ref");
    canvas.text(area.right - 4, i % 2 == 0 ? y - 5 : y + 14,
                fmt::format("{}: {} {}", refs[i].label, display_number(refs[i].value), unit), "reflabel", "end");
  }
}

void draw_references_x(SvgCanvas& canvas, const PlotArea& area, const Scale& scale,
                       const std::vector<ReferenceLine>& refs, std::string_view unit) {
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const double x = scale(refs[i].value);
    canvas.line(x, area.top, x, area.bottom, "ref");
    canvas.text(x + 4, area.top + 12 + 14 * static_cast<double>(i),
                fmt::format("{}: {} {}", refs[i].label, display_number(refs[i].value), unit), "reflabel");
  }
}

std::string tooltip(std::string_view name, double value, std::string_view unit) {
  return fmt::format("{}: {}{}{}", name, display_number(value), unit.empty() ? "" : " ", unit);
}

}  // namespace k3::reports::detail
