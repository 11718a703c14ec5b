#include "reports/sections/sweep.hpp"

#include <fmt/format.h>

#include "core/version.hpp"
#include "reports/report.hpp"
#include "reports/sections/step.hpp"

namespace k3::reports {

void write_compare_report(const std::string& path, const nlohmann::json& comparison, const std::string& command) {
  const auto& variants = comparison.at("variants");
  reports::Report report("Variant comparison", "deltas against " + comparison.at("baseline").get<std::string>());
  auto& overview = report.add_section("overview", "Side by side");
  std::vector<reports::Card> cards;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const auto& r = variants[i].at("result");
    cards.push_back({variants[i].at("name").get<std::string>() + " step time", r.at("step_time_s").get<double>(), "s",
                     fmt::format("/variants/{}/result/step_time_s", i),
                     fmt::format("{:.1f} % MFU, {:.4g} tokens/s", 100 * r.at("mfu").get<double>(),
                                 r.at("tokens_per_s").get<double>())});
  }
  overview.cards(cards);
  std::vector<reports::Column> columns{{"Quantity", ""}, {"Unit", ""}};
  for (const auto& v : variants) columns.push_back({v.at("name").get<std::string>(), ""});
  for (std::size_t i = 1; i < variants.size(); ++i) {
    columns.push_back({"Change, " + variants[i].at("name").get<std::string>(), "%"});
  }
  reports::Table table(columns);
  table.caption("Each quantity per variant; changes are against the first variant");
  const auto& metrics = comparison.at("metrics");
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const auto& row = metrics[m];
    std::vector<reports::Cell> cells{reports::Cell::of_text(row.at("label").get<std::string>()),
                                     reports::Cell::of_text(row.at("unit").get<std::string>())};
    const auto& values = row.at("values");
    for (std::size_t i = 0; i < values.size(); ++i) {
      cells.push_back(values[i].is_null()
                          ? reports::Cell::of_text("-")
                          : reports::Cell::of_number(values[i].at("value").get<double>(),
                                                     fmt::format("/metrics/{}/values/{}/value", m, i)));
    }
    for (std::size_t i = 1; i < values.size(); ++i) {
      const bool has = !values[i].is_null() && values[i].contains("delta_fraction");
      cells.push_back(has ? reports::Cell::of_number(100 * values[i].at("delta_fraction").get<double>(), {}, 3)
                          : reports::Cell::of_text("-"));
    }
    table.add_row(std::move(cells));
  }
  overview.table(table);

  // The band of each variant and whether the winner holds in every paired sample.
  const auto& winner = comparison.at("winner");
  if (winner.contains("samples")) {
    overview.paragraph(fmt::format(
        "Fastest step: {}, in the plain runs and in {} of {} band samples, paired across the variants (each "
        "sample draws the same value of a shared provenance entry for every variant): {}.",
        winner.at("name").get<std::string>(), winner.at("holds_in_samples").get<int>(), winner.at("samples").get<int>(),
        winner.at("holds_across_band").get<bool>() ? "the winner holds across the band"
                                                   : "the winner does not hold across the band"));
    reports::Table band({{"Variant", ""}, {"Step time P10", "s"}, {"P50", "s"}, {"P90", "s"}});
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const auto& r = variants[i].at("result");
      if (!r.contains("band")) continue;
      std::vector<reports::Cell> cells{reports::Cell::of_text(variants[i].at("name").get<std::string>())};
      for (const char* q : {"p10", "p50", "p90"}) {
        cells.push_back(reports::Cell::of_number(r.at("band").at("step_time_s").at(q).get<double>(),
                                                 fmt::format("/variants/{}/result/band/step_time_s/{}", i, q)));
      }
      band.add_row(std::move(cells));
    }
    band.caption("Uncertainty band of each variant's step time over the provenance ranges.");
    overview.table(band);
  }

  // Step time breakdown as stacked bars, one per variant.
  reports::BarChart bars;
  bars.title = "Step time on the critical pipeline rank";
  bars.category_label = "Variant";
  bars.value_axis = {"Time", "s"};
  bars.layout = reports::BarLayout::kStacked;
  for (const auto& v : variants) bars.categories.push_back(v.at("name").get<std::string>());
  for (const auto& row : metrics) {
    if (!row.at("pointer").get<std::string>().starts_with("/breakdown_s/")) continue;
    reports::BarSeries s{row.at("label").get<std::string>(), {}};
    for (const auto& c : row.at("values")) s.values.push_back(c.is_null() ? 0.0 : c.at("value").get<double>());
    bars.series.push_back(std::move(s));
  }
  if (!bars.series.empty()) overview.chart(reports::bar_chart(bars), "Breakdown of one training step per variant");

  // Memory against HBM, throughput and the breakdown by category, variant by variant.
  std::vector<nlohmann::json> steps;
  std::vector<std::string> names, prefixes;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    steps.push_back(variants[i].at("result"));
    names.push_back(variants[i].at("name").get<std::string>());
    prefixes.push_back(fmt::format("/variants/{}/result", i));
  }
  reports::add_step_comparison_section(report, steps, names, prefixes);

  reports::RunInfo info;
  info.command = command;
  info.version = std::string(core::version_string());
  info.scenario_name = variants[0].at("name").get<std::string>();
  info.seed = variants[0].at("result").at("seed").get<std::uint64_t>();
  for (const auto& v : variants) info.scenario_text += "# " + v.at("name").get<std::string>() + "\n";
  for (const auto& a : variants[0].at("result").at("assumptions")) {
    info.assumptions.push_back(reports::split_assumption(a.get<std::string>()));
  }
  report.add_run_info(info);
  report.write_html(path);
}

void write_sweep_report(const std::string& path, const nlohmann::json& sweep, const std::string& command) {
  const auto& points = sweep.at("points");
  const std::string x_key = sweep.at("pareto_axes")[0].get<std::string>();
  const bool by_cost = x_key != "gpus";
  reports::Report report("Design-space sweep", sweep.at("scenario").get<std::string>());
  auto& s = report.add_section("sweep", "Pareto front");
  s.cards({{"Points", static_cast<double>(sweep.at("points_total").get<std::size_t>()), "points", "/points_total", ""},
           {"Feasible", static_cast<double>(sweep.at("points_feasible").get<std::size_t>()), "points",
            "/points_feasible", "run and fit in HBM"},
           {"On the front", static_cast<double>(sweep.at("points_on_front").get<std::size_t>()), "points",
            "/points_on_front", "no other point is cheaper and faster"}});
  reports::ScatterChart chart;
  chart.title = "Feasible points";
  chart.x_axis = by_cost ? reports::Axis{"Cost per 1e12 tokens", "USD"} : reports::Axis{"GPUs", "GPUs"};
  chart.y_axis = {"Step time", "s"};
  std::vector<reports::Column> columns{{"Point", ""}};
  for (const auto& a : sweep.at("axes")) columns.push_back({a.at("key").get<std::string>(), ""});
  for (const auto& c : std::vector<reports::Column>{{"GPUs", ""}, {"Step time", "s"}, {"MFU", "%"},
                                                    {"Pareto", ""}, {"Reason", ""}}) {
    columns.push_back(c);
  }
  reports::Table table(columns);
  table.caption("Every point; infeasible ones with their reason");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    std::string name = fmt::format("#{}", p.at("index").get<std::size_t>());
    std::vector<reports::Cell> cells{reports::Cell::of_text(name)};
    for (const auto& a : sweep.at("axes")) {
      cells.push_back(reports::Cell::of_text(p.at("settings").at(a.at("key").get<std::string>()).get<std::string>()));
    }
    const auto& r = p.at("result");
    if (p.at("ran").get<bool>()) {
      cells.push_back(reports::Cell::of_number(r.at("gpus").get<double>(), fmt::format("/points/{}/result/gpus", i)));
      cells.push_back(reports::Cell::of_number(r.at("step_time_s").get<double>(),
                                               fmt::format("/points/{}/result/step_time_s", i)));
      cells.push_back(reports::Cell::of_number(100 * r.at("mfu").get<double>(), {}, 3));
    } else {
      for (int k = 0; k < 3; ++k) cells.push_back(reports::Cell::of_text("-"));
    }
    cells.push_back(reports::Cell::of_text(p.at("pareto").get<bool>() ? "yes" : "no"));
    cells.push_back(reports::Cell::of_text(p.value("reason", "")));
    table.add_row(std::move(cells));
    if (p.at("feasible").get<bool>() && (!by_cost || r.contains(x_key))) {
      chart.points.push_back({name, r.at(x_key).get<double>(), r.at("step_time_s").get<double>()});
    }
  }
  if (!chart.points.empty()) {
    s.chart(reports::scatter_chart(chart),
            std::string("Step time against ") + (by_cost ? "cost per 1e12 tokens" : "GPUs") + "; the front is drawn");
  }
  s.table(table);
  reports::RunInfo info;
  info.command = command;
  info.version = std::string(core::version_string());
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
