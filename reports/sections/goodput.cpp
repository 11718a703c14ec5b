#include "reports/sections/goodput.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "reports/sections/json_fields.hpp"
#include "reports/text.hpp"

namespace k3::reports {

namespace {

double hours(double s) { return s / 3600; }

// Where the run's wall-clock goes, mean of the replications, in hours: kept, lost work, recovering, saving,
// stragglers (the categories sum to the run).
void add_time_chart(Section& s, const nlohmann::json& g) {
  double lost = 0, down = 0;
  for (const auto& c : g.at("causes")) {
    lost += num(c, "lost_work_s_mean");
    down += num(c, "recovering_s_mean");
  }
  const double run_s = num(g, "days") * 86400;
  const double saving = num(g, "checkpoint_saving_s_mean"), stragglers = num(g, "straggler_s_mean");
  const double kept = run_s - lost - down - saving - stragglers;
  BarChart c;
  c.title = "Where the run's time goes (mean of the replications)";
  c.categories = {"run"};
  c.value_axis = {"Wall-clock", "h", false};
  c.layout = BarLayout::kStacked;
  c.orientation = Orientation::kHorizontal;
  c.size = {960, 170};
  c.series = {{"training kept", {hours(kept)}}, {"work lost", {hours(lost)}}, {"recovering", {hours(down)}},
              {"saving checkpoints", {hours(saving)}}};
  if (stragglers > 0) c.series.push_back({"stragglers", {hours(stragglers)}});
  s.chart(bar_chart(c), "Work lost: training since the last save, redone. Recovering: waiting for a spare, "
                        "restarting, reading the checkpoint back.");
}

void add_cause_table(Section& s, const nlohmann::json& g, const std::string& k) {
  Table t({{"Cause", ""}, {"Rate counted per", ""}, {"On this job", "per day"}, {"Interruptions", "mean"},
           {"Work lost", "h"}, {"Recovering", "h"}});
  const auto& causes = g.at("causes");
  for (std::size_t i = 0; i < causes.size(); ++i) {
    const auto& c = causes[i];
    const auto p = fmt::format("{}/goodput/causes/{}/", k, i);
    t.add_row({Cell::of_text(c.at("cause").get<std::string>() + " (" + c.at("what").get<std::string>() + ")"),
               Cell::of_text(c.at("unit").get<std::string>() + "-hour"),
               Cell{display_number(24 * num(c, "job_rate_per_hour"), 3), num(c, "job_rate_per_hour"), p + "job_rate_per_hour"},
               Cell::of_number(num(c, "interruptions_mean"), p + "interruptions_mean", 3),
               Cell{display_number(hours(num(c, "lost_work_s_mean")), 3), num(c, "lost_work_s_mean"), p + "lost_work_s_mean"},
               Cell{display_number(hours(num(c, "recovering_s_mean")), 3), num(c, "recovering_s_mean"),
                    p + "recovering_s_mean"}});
  }
  const auto source = g.at("rates_source").get<std::string>();
  t.caption("Rates are inputs: " +
            (source == "llama3-405b" ? std::string("the Llama 3 405B run's (arXiv:2407.21783 Table 5)") : source) +
            ", counted per the unit shown; interruptions and hours are predicted.");
  s.table(t);
}

void add_interval_chart(Section& s, const nlohmann::json& g) {
  LineSeries scan{"simulated (mean of the replications)", {}, {}};
  for (const auto& p : g.at("interval_scan")) {
    scan.x.push_back(num(p, "interval_s") / 60);
    scan.y.push_back(100 * (1 - num(p, "ettr_mean")));
  }
  LineChart c;
  c.title = "Time lost against the checkpoint interval";
  c.x_axis = {"Interval", "min", true};
  c.y_axis = {"Time lost (100% - effective training time)", "%", false};
  c.series = {scan};
  s.chart(line_chart(c), fmt::format("Every interval on the same failures (common random numbers). Young: {} min, "
                                     "Daly: {} min, simulated optimum: {} min.",
                                     display_number(num(g, "young_interval_s") / 60, 3),
                                     display_number(num(g, "daly_interval_s") / 60, 3),
                                     display_number(num(g, "optimum_interval_s") / 60, 3)));
}

}  // namespace

void add_goodput_section(Report& report, const nlohmann::json& step, const std::string& k) {
  if (!step.contains("goodput")) return;
  const auto& g = step.at("goodput");
  Section& s = report.add_section("goodput", "A whole run: interruptions and goodput");
  s.paragraph(fmt::format(
      "The step above, run for {} days on {} GPUs under the scenario's reliability: block and replicated {} times: "
      "interruptions on per-cause clocks, a blocking save every {} min, the work since the last save redone after "
      "a failure, and a restart of {} min plus the checkpoint read. Inputs: the rates, the restart time, the "
      "storage bandwidth and the step; everything else is predicted.",
      display_number(num(g, "days")), display_number(num(g, "gpus")), num(g, "replications"),
      display_number(num(g, "interval_s") / 60, 3), display_number(num(g, "restart_s") / 60, 3)));
  const auto& ettr = g.at("effective_training_time");
  const auto& good = g.at("goodput_tokens_per_s");
  s.cards({{"Effective training time", num(ettr, "p50"), "%", k + "/goodput/effective_training_time/p50",
            fmt::format("P10 {} .. P90 {} %", display_number(100 * num(ettr, "p10"), 3),
                        display_number(100 * num(ettr, "p90"), 3)),
            100},
           {"Goodput", num(good, "p50"), "tokens/s", k + "/goodput/goodput_tokens_per_s/p50",
            fmt::format("ideal {} tokens/s", display_number(num(g, "ideal_tokens_per_s"))), 1},
           {"Interruptions", num(g.at("interruptions"), "p50"), "", k + "/goodput/interruptions/p50",
            fmt::format("one unplanned every {} h", display_number(num(g, "mtbf_unplanned_s") / 3600, 3)), 1}});
  add_time_chart(s, g);
  add_cause_table(s, g, k);
  add_interval_chart(s, g);
}

void add_goodput_comparison(Report& report,
                            const std::vector<std::tuple<std::string, const nlohmann::json*, std::string>>& steps) {
  std::vector<std::string> causes;  // the union of lost_s_mean_by_cause's keys, first seen first
  bool any = false;
  for (const auto& [name, step, pointer] : steps) {
    if (!step->contains("goodput")) continue;
    any = true;
    for (const auto& [cause, s] : step->at("goodput").at("lost_s_mean_by_cause").items()) {
      if (std::find(causes.begin(), causes.end(), cause) == causes.end()) causes.push_back(cause);
    }
  }
  if (!any) return;
  Section& s = report.add_section("goodput", "A whole run: which variant keeps more of it?");
  s.paragraph("Each variant's step, run under its reliability: block for the same days and replicated: the share of "
              "the run that trains, its goodput, and the run time each cause costs (work lost and recovering; saving "
              "checkpoints on its own). A larger model state saves and restores slower.");
  BarChart c;
  c.title = "Run time lost per cause (mean of the replications)";
  c.category_label = "Cause";
  c.categories = causes;
  c.value_axis = {"Time lost", "h", false};
  Table t({{"Variant", ""}, {"Effective training time", "% (P50)"}, {"Goodput", "tokens/s (P50)"}, {"Lost in all", "h"}});
  for (const auto& [name, step, pointer] : steps) {
    if (!step->contains("goodput")) continue;
    const auto& g = step->at("goodput");
    BarSeries series{name, {}};
    double lost = 0;
    for (const auto& cause : causes) {
      const double v = g.at("lost_s_mean_by_cause").value(cause, 0.0);
      series.values.push_back(hours(v));
      lost += v;
    }
    c.series.push_back(series);
    const double ettr = num(g.at("effective_training_time"), "p50");
    const double good = num(g.at("goodput_tokens_per_s"), "p50");
    t.add_row({Cell::of_text(name),
               Cell{display_number(100 * ettr, 3), ettr, pointer + "/result/goodput/effective_training_time/p50"},
               Cell{display_number(good), good, pointer + "/result/goodput/goodput_tokens_per_s/p50"},
               Cell::of_number(hours(lost), {}, 3)});
  }
  s.chart(bar_chart(c), "Work lost and recovering per cause; saving: the checkpoints' own time.");
  s.table(t);
}

}  // namespace k3::reports
