#include "reports/sections/validation.hpp"

#include <fmt/format.h>

#include <cmath>

#include "reports/charts/charts.hpp"
#include "reports/sections/step.hpp"
#include "reports/table.hpp"

namespace k3::reports {

void add_validation_section(Report& report, const nlohmann::json& v) {
  Section& s = report.add_section("validation", "Validation: predicted against published");
  s.paragraph("Each case simulates a published setup and compares one figure. The error is (predicted - "
              "published) / published. Constants once set after looking at these errors are listed, with what they "
              "were re-derived from, in README \"How far to trust it\". The band is P10..P90 of the prediction over "
              "the provenance ranges of every number it read, widened by the model discrepancy: the spread of "
              "ln(published / P50) over the other families' rows, so that no family's band is fitted on itself.");
  Table families({{"Family (worst first)", ""}, {"Quantity", ""}, {"Rows", ""}, {"P50 error from", "%"},
                  {"to", "%"}, {"Mean |error|", "%"}, {"Inside P10..P90", ""}, {"Mean band width", "%"},
                  {"Discrepancy sigma (ln)", ""}, {"Fitted on", ""}});
  const auto& fams = v.at("families");
  for (std::size_t i = 0; i < fams.size(); ++i) {
    const auto& f = fams[i];
    const std::string k = fmt::format("/families/{}/", i);
    std::string fitted = f.at("discrepancy").at("pooled").get<bool>() ? "pooled: " : "";
    for (const auto& name : f.at("discrepancy").at("fitted_on")) {
      fitted += (fitted.empty() || fitted == "pooled: " ? "" : ", ") + name.get<std::string>();
    }
    families.add_row({Cell::of_text(f.at("family").get<std::string>()), Cell::of_text(f.at("quantity").get<std::string>()),
                      Cell::of_number(f.at("rows").get<int>(), k + "rows"),
                      Cell::of_text(fmt::format("{:+.1f}", 100 * f.at("p50_error").at("min").get<double>())),
                      Cell::of_text(fmt::format("{:+.1f}", 100 * f.at("p50_error").at("max").get<double>())),
                      Cell::of_text(fmt::format("{:.1f}", 100 * f.at("p50_error").at("mean_abs").get<double>())),
                      Cell::of_text(fmt::format("{} of {}", f.at("in_band").get<int>(), f.at("rows").get<int>())),
                      Cell::of_text(fmt::format("{:.0f}", 100 * f.at("mean_band_width").get<double>())),
                      Cell::of_number(f.at("discrepancy").at("sigma_log").get<double>(), k + "discrepancy/sigma_log"),
                      Cell::of_text(fitted)});
  }
  s.table(families);
  BarChart errors;
  errors.title = "Signed error per case";
  errors.category_label = "Case";
  errors.value_axis = {"Error", "%", false};
  errors.orientation = Orientation::kHorizontal;
  BarSeries series{"error", {}};
  Table t({{"Case", ""}, {"Metric", ""}, {"Predicted", ""}, {"Published", ""}, {"Unit", ""}, {"Error", "%"},
           {"Band P10", ""}, {"Band P90", ""}, {"P50 error", "%"}, {"In band", ""}, {"Source", ""}});
  const auto& cases = v.at("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::string k = fmt::format("/cases/{}/", i);
    const double err = c.at("rel_error").get<double>();
    errors.categories.push_back(c.at("case").get<std::string>());
    series.values.push_back(100 * err);
    t.add_row({Cell::of_text(c.at("case").get<std::string>()), Cell::of_text(c.at("metric").get<std::string>()),
               Cell::of_number(c.at("predicted").get<double>(), k + "predicted"),
               Cell::of_number(c.at("published").get<double>(), k + "published"),
               Cell::of_text(c.at("unit").get<std::string>()), Cell::of_text(fmt::format("{:+.1f}", 100 * err)),
               c.contains("band") ? Cell::of_number(c.at("band").at("p10").get<double>(), k + "band/p10") : Cell::of_text("-"),
               c.contains("band") ? Cell::of_number(c.at("band").at("p90").get<double>(), k + "band/p90") : Cell::of_text("-"),
               Cell::of_text(fmt::format("{:+.1f}", 100 * c.at("p50_rel_error").get<double>())),
               Cell::of_text(c.contains("in_band") ? (c.at("in_band").get<bool>() ? "yes" : "no") : "-"),
               Cell::of_text(c.value("source", ""))});
  }
  errors.series.push_back(series);
  errors.references = {{"+10%", 10}, {"-10%", -10}};
  errors.size.height_px = std::max(360.0, 26.0 * static_cast<double>(cases.size()) + 80);
  s.chart(bar_chart(errors), "Bars beyond the dashed lines miss the +-10% bound the issue asks for.");
  s.table(t);
}

void write_validation_report(const std::string& path, const nlohmann::json& v, RunInfo info) {
  Report report("Validation against published measurements",
                "DeepSeek-V3 on 2,048 H800, Megatron-LM SC21 Table 1 on A100 Selene, Megatron-Core Qwen3-235B on 256 H100, "
                "DeepEP normal kernels, SGLang DeepSeek-V3 serving on 96 H100.");
  Section& summary = report.add_section("summary", "Summary");
  std::vector<Card> cards;
  const auto& cases = v.at("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (cases[i].value("group", "") == "deepseek-v3") {
      cards.push_back({"DeepSeek-V3 step time error", cases[i].at("rel_error").get<double>(), "%",
                       fmt::format("/cases/{}/rel_error", i),
                       fmt::format("{:.2f} s predicted, {:.3f} s published", cases[i].at("predicted").get<double>(),
                                   cases[i].at("published").get<double>()),
                       100});
    }
  }
  if (v.contains("megatron_mean_abs_error")) {
    cards.push_back({"Megatron SC21 mean |error|", v.at("megatron_mean_abs_error").get<double>(), "%",
                     "/megatron_mean_abs_error", "TFLOP/s per GPU, 10 rows", 100});
  }
  if (v.contains("coverage") && v.at("coverage").at("cases_with_band").get<int>() > 0) {
    const auto& cov = v.at("coverage");
    cards.push_back({"Published values inside the P10..P90 band", cov.at("fraction").get<double>(), "%",
                     "/coverage/fraction",
                     fmt::format("{} of {} cases, mean band width {:.0f}% of P50; an honest 80% band holds about 80%",
                                 cov.at("cases_in_band").get<int>(), cov.at("cases_with_band").get<int>(),
                                 100 * cov.value("mean_band_width", 0.0)),
                     100});
  }
  summary.cards(cards);
  add_validation_section(report, v);
  for (const auto& a : v.value("assumptions", nlohmann::json::array())) {
    info.assumptions.push_back(split_assumption(a.get<std::string>()));
  }
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
