// Section "uncertainty" of a step report: the P10/P50/P90 band and the tornado chart of the sensitivity
// ranking, from the "band" and "sensitivity" keys of `k3sim run --json` (results/band_output.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "reports/sections/step.hpp"
#include "reports/text.hpp"

namespace k3::reports {

namespace {

constexpr std::size_t kTornadoEntries = 12;

// A tornado chart and its table for one ranking (by factor, or by number) at `key` of the step.
void add_ranking(Section& s, const nlohmann::json& ranking, const std::string& key, double nominal,
                 const std::string& k) {
  if (ranking.empty()) return;
  const bool by_entry = key == "sensitivity_by_entry";
  BarChart tornado;
  tornado.title = by_entry ? "Step time moved by each number alone, from its low to its high end"
                           : "Step time moved by each factor alone (a software stack as one), from its low to its high end";
  tornado.value_axis = {"Change of step time", "s", false};
  tornado.orientation = Orientation::kHorizontal;
  BarSeries low{"at its low end", {}}, high{"at its high end", {}};
  Table r({{by_entry ? "Entry" : "Factor", ""}, {"Kind", ""}, {"Moved", ""}, {"Step time at low", "s"},
           {"Step time at high", "s"}, {"Source", ""}});
  for (std::size_t i = 0; i < std::min(kTornadoEntries, ranking.size()); ++i) {
    const auto& e = ranking[i];
    const auto id = e.at("id").get<std::string>();
    tornado.categories.push_back(id);
    low.values.push_back(e.at("step_time_at_low_s").get<double>() - nominal);
    high.values.push_back(e.at("step_time_at_high_s").get<double>() - nominal);
    std::string moved = e.at("range").get<std::string>();
    if (e.contains("members")) {
      std::vector<std::string> members;
      for (const auto& m : e.at("members")) members.push_back(m.get<std::string>());
      moved += fmt::format(": {}", fmt::join(members, ", "));
    }
    r.add_row({Cell::of_text(id), Cell::of_text(e.at("kind").get<std::string>()), Cell::of_text(moved),
               Cell::of_number(e.at("step_time_at_low_s").get<double>(), fmt::format("{}/{}/{}/step_time_at_low_s", k, key, i)),
               Cell::of_number(e.at("step_time_at_high_s").get<double>(), fmt::format("{}/{}/{}/step_time_at_high_s", k, key, i)),
               Cell::of_text(e.at("source").get<std::string>())});
  }
  tornado.series = {std::move(low), std::move(high)};
  tornado.size = {960, std::max(220.0, 90 + 30.0 * static_cast<double>(tornado.categories.size()))};
  s.chart(bar_chart(tornado), fmt::format("Against the plain run's {} s; largest swing first; a software stack's low end "
                                          "is its slow end.", display_number(nominal)));
  r.caption(by_entry ? "Each number alone, with its source." : "The factors that move the step most, with their sources.");
  s.table(r);
}

}  // namespace

void add_uncertainty_section(Report& report, const nlohmann::json& step, const std::string& k) {
  if (!step.contains("band")) return;
  const auto& band = step.at("band");
  Section& s = report.add_section("uncertainty", "Uncertainty and sensitivity");
  s.paragraph(band.at("method").get<std::string>() + ". Each number the prediction depends on is a provenance "
              "entry with a plausible range (listed under the assumptions); the band is how far the step moves "
              "when all of them vary together, the tornado how far each factor (a software stack, or a number outside every "
              "stack) moves it alone.");
  Table t({{"Quantity", ""}, {"P10", ""}, {"P50", ""}, {"P90", ""}, {"Unit", ""}});
  struct Row {
    const char* label;
    const char* key;
    double scale;
    const char* unit;
  };
  // One table row per quantity of `quantiles` (the JSON object at `pointer` under the step).
  auto add_rows = [&t, &k](const nlohmann::json& quantiles, const std::string& pointer, std::initializer_list<Row> rows) {
    for (const Row& r : rows) {
      std::vector<Cell> cells{Cell::of_text(r.label)};
      for (const char* q : {"p10", "p50", "p90"}) {
        const double v = quantiles.at(r.key).at(q).get<double>();
        cells.push_back(Cell{display_number(v * r.scale), v, fmt::format("{}/{}/{}/{}", k, pointer, r.key, q)});
      }
      cells.push_back(Cell::of_text(r.unit));
      t.add_row(std::move(cells));
    }
  };
  add_rows(band, "band",
           {Row{"step time", "step_time_s", 1, "s"}, Row{"throughput", "tokens_per_s", 1e-6, "M tokens/s"},
            Row{"MFU", "mfu", 100, "% of BF16 peak"},
            Row{"memory per GPU", "memory_bytes_per_gpu", 1.0 / (1024.0 * 1024.0 * 1024.0), "GiB"}});
  std::string caption = fmt::format("{} samples, {} step simulations in all (the tornado's included).",
                                    band.at("samples").get<int>(), band.at("runs").get<int>());
  if (band.contains("with_model_discrepancy")) {
    // The same quantiles widened by how far k3sim's predictions have landed from published runs (issue 44).
    const auto& d = band.at("with_model_discrepancy");
    add_rows(d, "band/with_model_discrepancy",
             {Row{"step time, with the model discrepancy", "step_time_s", 1, "s"},
              Row{"throughput, with the model discrepancy", "tokens_per_s", 1e-6, "M tokens/s"}});
    caption += fmt::format(" The rows with the model discrepancy widen the band by how far k3sim's training steps have "
                           "landed from published ones (sigma of ln {}, fitted on {} families by `k3sim validate`, {}).",
                           display_number(d.at("sigma_log").get<double>()), d.at("fitted_on").size(),
                           d.at("table").get<std::string>());
  }
  t.caption(caption);
  s.table(t);

  const double nominal = step.at("step_time_s").get<double>();
  add_ranking(s, step.at("sensitivity"), "sensitivity", nominal, k);
  if (step.contains("sensitivity_by_entry")) add_ranking(s, step.at("sensitivity_by_entry"), "sensitivity_by_entry", nominal, k);
}

}  // namespace k3::reports
