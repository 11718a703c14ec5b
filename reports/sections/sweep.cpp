#include "reports/sections/sweep.hpp"

#include <fmt/format.h>

#include "core/version.hpp"
#include "reports/report.hpp"

namespace k3::reports {

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
  chart.x_axis = by_cost ? reports::Axis{"Cost per trillion tokens", "USD"} : reports::Axis{"GPUs", "GPUs"};
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
            std::string("Step time against ") + (by_cost ? "cost per trillion tokens" : "GPUs") + "; the front is drawn");
  }
  s.table(table);
  reports::RunInfo info;
  info.command = command;
  info.version = std::string(core::version_string());
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
