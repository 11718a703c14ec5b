// Review sections on the step itself: what got faster and slower (breakdown deltas), memory against HBM.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/sections/review_parts.hpp"
#include "reports/text.hpp"

namespace k3::reports::review {

namespace {

const std::vector<std::string> kCategories{"compute", "communication", "host", "bubble", "optimizer"};

double breakdown_s(const VariantView& v, const std::string& name) {
  const auto& b = v.entry->at("breakdown_s");
  return b.contains(name) ? b.at(name).get<double>() : 0.0;
}

// Breakdown names in first-seen order over the variants.
std::vector<std::string> cause_names(const std::vector<VariantView>& vs) {
  std::vector<std::string> names;
  for (const auto& v : vs)
    for (const auto& [name, s] : v.entry->at("breakdown_s").items())
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

}  // namespace

void add_step_time(Report& report, const std::vector<VariantView>& vs, const CauseColours& colours) {
  Section& s = report.add_section("step-time", "Step time: what got faster, what got slower?");
  const auto& base = vs.front();
  const auto names = cause_names(vs);
  s.paragraph(fmt::format("Each cause of the critical pipeline rank's step time, against {}. Compute causes are blues, "
                          "exposed communication oranges, pipeline bubble and optimizer greys.",
                          base.name));
  for (std::size_t i = 1; i < vs.size(); ++i) {
    DivergingBarChart c;
    c.title = fmt::format("{} minus {}, per cause", vs[i].name, base.name);
    c.value_axis = {"Change of step time", "s", false};
    c.negative_label = "faster in " + vs[i].name;
    c.positive_label = "slower in " + vs[i].name;
    std::vector<DivergingBar> bars;
    for (const auto& n : names) {
      const double d = breakdown_s(vs[i], n) - breakdown_s(base, n);
      if (std::fabs(d) >= 1e-4) bars.push_back({n, d, colours(n)});  // below 0.1 ms there is nothing to see
    }
    std::stable_sort(bars.begin(), bars.end(), [](const auto& a, const auto& b) { return a.value < b.value; });
    if (bars.empty()) continue;
    c.bars = std::move(bars);
    s.chart(diverging_bar_chart(c),
            fmt::format("Look at the longest bars: they make the {} net difference ({} against {}).",
                        signed_seconds_text(vs[i].step_s() - base.step_s()), seconds_text(vs[i].step_s()),
                        seconds_text(base.step_s())));
  }

  BarChart stacked;
  stacked.title = "Step time by category";
  stacked.category_label = "Variant";
  stacked.value_axis = {"Step time", "s", false};
  stacked.layout = BarLayout::kStacked;
  stacked.orientation = Orientation::kHorizontal;
  for (const auto& v : vs) stacked.categories.push_back(v.name);
  for (const auto& cat : kCategories) {
    BarSeries series{cat, {}};
    stacked.series_colours.push_back(detail::family_colour(family_of(cat), cat == "optimizer" ? 1 : cat == "host" ? 2 : 0));
    for (const auto& v : vs) {
      double sum = 0;
      for (const auto& b : v.result().at("breakdown"))
        if (b.at("category").get<std::string>() == cat) sum += b.at("seconds").get<double>();
      series.values.push_back(sum);
    }
    stacked.series.push_back(std::move(series));
  }
  stacked.size = {960, 120 + 50.0 * static_cast<double>(vs.size())};
  s.chart(bar_chart(stacked), "Look at the blue share: the rest is time no GPU spends on the model's math.");

  std::vector<Column> columns{{"Cause", ""}, {"Category", ""}};
  for (const auto& v : vs) columns.push_back({v.name, "s"});
  for (std::size_t i = 1; i < vs.size(); ++i) columns.push_back({"Change, " + vs[i].name, "s"});
  Table t(columns);
  for (const auto& n : names) {
    std::vector<Cell> row{Cell::of_text(n), Cell::of_text(colours.category(n))};
    for (const auto& v : vs) {
      const auto& b = v.entry->at("breakdown_s");
      row.push_back(b.contains(n) ? Cell::of_number(b.at(n).get<double>(),
                                                    (nlohmann::json::json_pointer(v.pointer + "/breakdown_s") / n).to_string())
                                  : Cell::of_text("-"));
    }
    for (std::size_t i = 1; i < vs.size(); ++i) row.push_back(Cell::of_number(breakdown_s(vs[i], n) - breakdown_s(base, n)));
    t.add_row(std::move(row));
  }
  t.caption("Seconds of the critical rank's step per cause; the columns sum to each variant's step time.");
  s.table(t);
}

void add_memory(Report& report, const std::vector<VariantView>& vs) {
  Section& s = report.add_section("memory", "Memory per GPU: how much HBM is left?");
  std::vector<std::string> names;
  for (const auto& v : vs)
    for (const auto& m : v.result().at("memory_per_gpu"))
      if (std::find(names.begin(), names.end(), m.at("name").get<std::string>()) == names.end())
        names.push_back(m.at("name").get<std::string>());
  BarChart c;
  c.title = "Memory of the most loaded GPU by category";
  c.category_label = "Variant";
  c.value_axis = {"Memory", "GiB", false};
  c.layout = BarLayout::kStacked;
  c.orientation = Orientation::kHorizontal;
  for (const auto& v : vs) c.categories.push_back(v.name);
  for (const auto& n : names) {
    BarSeries series{n, {}};
    for (const auto& v : vs) {
      double bytes = 0;
      for (const auto& m : v.result().at("memory_per_gpu"))
        if (m.at("name").get<std::string>() == n) bytes += m.at("bytes").get<double>();
      series.values.push_back(bytes / kGiB);
    }
    c.series.push_back(std::move(series));
  }
  for (const auto& v : vs) {
    const double hbm = v.result().at("hbm_bytes").get<double>() / kGiB;
    if (std::none_of(c.references.begin(), c.references.end(), [&](const ReferenceLine& r) { return r.value == hbm; }))
      c.references.push_back({"HBM", hbm});
  }
  c.size = {960, 150 + 50.0 * static_cast<double>(vs.size())};
  s.chart(bar_chart(c), "Look at the gap to the dashed line: the HBM each variant leaves free on its fullest GPU.");

  std::vector<Column> columns{{"Category", ""}};
  for (const auto& v : vs) columns.push_back({v.name, "GiB"});
  Table t(columns);
  for (const auto& n : names) {
    std::vector<Cell> row{Cell::of_text(n)};
    for (const auto& v : vs) {
      const auto& mem = v.result().at("memory_per_gpu");
      Cell cell = Cell::of_text("-");
      for (std::size_t j = 0; j < mem.size(); ++j) {
        if (mem[j].at("name").get<std::string>() != n) continue;
        const double b = mem[j].at("bytes").get<double>();
        cell = Cell{display_number(b / kGiB), b, fmt::format("{}/result/memory_per_gpu/{}/bytes", v.pointer, j)};
      }
      row.push_back(cell);
    }
    t.add_row(std::move(row));
  }
  std::vector<Cell> total{Cell::of_text("total")}, hbm{Cell::of_text("HBM capacity")}, headroom{Cell::of_text("headroom")};
  for (const auto& v : vs) {
    const double used = v.result().at("memory_bytes_per_gpu").get<double>();
    const double cap = v.result().at("hbm_bytes").get<double>();
    const double head = v.entry->at("memory_headroom_bytes_per_gpu").get<double>();
    total.push_back({display_number(used / kGiB), used, v.pointer + "/result/memory_bytes_per_gpu"});
    hbm.push_back({display_number(cap / kGiB), cap, v.pointer + "/result/hbm_bytes"});
    headroom.push_back({display_number(head / kGiB), head, v.pointer + "/memory_headroom_bytes_per_gpu"});
  }
  t.add_row(std::move(total));
  t.add_row(std::move(hbm));
  t.add_row(std::move(headroom));
  t.caption("1 GiB = 2^30 B.");
  s.table(t);
}

}  // namespace k3::reports::review
