#include "reports/sections/plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "reports/text.hpp"

namespace k3::reports {

namespace {

std::string layout_text(const nlohmann::json& settings) {
  std::string out;
  for (const auto& [key, value] : settings.items()) {
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", key.substr(key.rfind('.') + 1), value.get<std::string>());
  }
  return out.empty() ? "(base)" : out;
}

// `p` is the layout search's JSON, found at `at` (a JSON pointer prefix) in the command's output.
void verdict(Section& s, const nlohmann::json& p, const std::string& at) {
  const auto& ranked = p.at("ranked");
  if (ranked.empty() || !ranked[0].at("feasible").get<bool>()) {
    s.verdict({"No candidate fits: relax --fix, add GPUs, or lower the batch."});
    return;
  }
  const auto& best = ranked[0];
  std::vector<std::string> sentences;
  sentences.push_back(fmt::format("Fastest of {} candidates on {} GPUs: {}, {:.3f} s a step on the analytical network{}.",
                                  p.at("candidates").get<std::size_t>(), p.at("gpus").get<std::int64_t>(),
                                  layout_text(best.at("settings")), best.at("step_time_s").get<double>(),
                                  best.contains("flow_step_time_s")
                                      ? fmt::format(", {:.3f} s on the flow network", best.at("flow_step_time_s").get<double>())
                                      : std::string()));
  if (ranked.size() > 1 && ranked[1].at("feasible").get<bool>()) {
    // What the runner-up trades (issue 47: "it loses on ." said nothing when no category of its step was longer):
    // the category it loses most on, and the HBM each leaves free.
    const auto loses = p.at("runner_up_loses_on").get<std::string>();
    const auto headroom = [](const nlohmann::json& c) {
      return c.contains("memory_headroom_gib") ? fmt::format("{:.1f} GiB", c.at("memory_headroom_gib").get<double>())
                                               : std::string("?");
    };
    sentences.push_back(fmt::format("The runner-up ({}) takes {:.3f} s; {}; it leaves {} of HBM free per GPU against the "
                                    "winner's {}.",
                                    layout_text(ranked[1].at("settings")), ranked[1].at("step_time_s").get<double>(),
                                    loses.empty() ? "it is as fast in every category of the step"
                                                  : "it loses most on " + loses,
                                    headroom(ranked[1]), headroom(best)));
  }
  if (p.contains("band")) {
    const auto& b = p.at("band");
    const int n = b.at("samples").get<int>();
    sentences.push_back(fmt::format(
        "Across the uncertainty band ({} paired samples of the registered numbers' ranges) the flow network's winner "
        "stays first in {} and the order of the re-run candidates holds in {}{}.",
        n, b.at("winner_holds").get<int>(), b.at("order_holds").get<int>(),
        b.at("order_holds").get<int>() == n ? "" : ": the ranking of the top candidates changes across the band"));
  }
  if (p.at("flow_changes_top_ranking").get<bool>()) {
    sentences.push_back("The flow network orders the re-run candidates differently from the analytical one.");
  }
  s.verdict(sentences);
  s.cards({{"Candidates", static_cast<double>(p.at("candidates").get<std::size_t>()), "layouts", at + "/candidates",
            "in the space searched"},
           {"Not simulated", static_cast<double>(p.at("pruned_total").get<std::size_t>()), "layouts", at + "/pruned_total",
            "refused by a rule or a bound"},
           {"Simulated", static_cast<double>(p.at("simulated").get<std::size_t>()), "layouts", at + "/simulated",
            "analytical network"},
           {"Best step", best.at("step_time_s").get<double>(), "s", at + "/ranked/0/step_time_s", layout_text(best.at("settings"))}});
}

void space(Report& report, const nlohmann::json& p, const std::string& at) {
  auto& s = report.add_section("space", "Where the candidates went");
  std::size_t infeasible = 0, feasible = 0;
  for (const auto& c : p.at("ranked")) (c.at("feasible").get<bool>() ? feasible : infeasible) += 1;
  BarChart chart;
  chart.title = "Candidates by outcome";
  chart.category_label = "Outcome";
  chart.value_axis = {"Candidates", "layouts", true};
  chart.orientation = Orientation::kHorizontal;
  BarSeries counts;
  Table table({{"Outcome", ""}, {"Candidates", "layouts"}, {"Example", ""}});
  table.caption("Rules refuse without simulating (the key a layout breaks, memory from the closed-form estimate); "
                "'bound' and 'goal' skip candidates whose step-time lower bound cannot enter the top rows or meet the goal");
  for (const auto& [rule, c] : p.at("pruned").items()) {
    chart.categories.push_back("refused: " + rule);
    counts.values.push_back(c.at("candidates").get<double>());
    table.add_row({Cell::of_text("refused: " + rule),
                   Cell::of_number(c.at("candidates").get<double>(), at + "/pruned/" + rule + "/candidates"),
                   Cell::of_text(c.at("example").get<std::string>())});
  }
  for (const auto& [name, n] : {std::pair<std::string, std::size_t>{"simulated, feasible", feasible},
                                {"simulated, infeasible", infeasible}}) {
    chart.categories.push_back(name);
    counts.values.push_back(static_cast<double>(n));
    table.add_row({Cell::of_text(name), Cell::of_number(static_cast<double>(n)), Cell::of_text("")});
  }
  chart.series.push_back(counts);
  chart.size.height_px = 60 + 32.0 * static_cast<double>(chart.categories.size());
  s.paragraph(fmt::format("{} candidates in the space ({} axes), {:.1f} s of search on all cores ({:.0f} candidates/s); "
                          "the survivors were simulated best lower bound first.",
                          p.at("candidates").get<std::size_t>(), p.at("space").size(), p.at("search_wall_s").get<double>(),
                          p.at("candidates_per_s").get<double>()));
  s.chart(bar_chart(chart), "How many candidates each rule refused, and how many were simulated (log scale)");
  s.table(table);
}

void front(Report& report, const nlohmann::json& p) {
  ScatterChart chart;
  chart.title = "Simulated layouts that fit";
  chart.x_axis = {"Memory per GPU", "GiB"};
  chart.y_axis = {"Step time", "s"};
  for (const auto& c : p.at("ranked")) {
    if (!c.at("feasible").get<bool>()) continue;
    chart.points.push_back({layout_text(c.at("settings")), c.at("memory_gib").get<double>(), c.at("step_time_s").get<double>()});
  }
  if (chart.points.empty()) return;
  auto& s = report.add_section("pareto", "Step time against memory");
  s.paragraph("Each point is a simulated layout that fits in HBM. The front holds the layouts no other is both faster "
              "and lighter than: the headroom each step time costs.");
  s.chart(scatter_chart(chart), "Step time (analytical network) against memory per GPU; the Pareto front is drawn");
}

void ranking(Report& report, const nlohmann::json& p, const std::string& at) {
  auto& s = report.add_section("ranking", "Ranking");
  Table table({{"Rank", ""},
               {"Layout", ""},
               {"Step", "s"},
               {"Flow step", "s"},
               {"Band P10", "s"},
               {"Band P90", "s"},
               {"Tokens/s", "tokens/s"},
               {"Headroom", "GiB"},
               {"Cost per trillion tokens", "USD"},
               {"MFU", "%"}});
  const auto rows = std::max<std::size_t>(1, p.at("exact_rows").get<std::size_t>());
  table.caption(fmt::format("The best {} (exact: no candidate left unsimulated can enter them); --json and --csv have "
                            "every simulated one",
                            rows));
  const auto& ranked = p.at("ranked");
  for (std::size_t i = 0; i < ranked.size() && i < rows; ++i) {
    const auto& c = ranked[i];
    if (!c.at("feasible").get<bool>()) break;
    const auto key = fmt::format("{}/ranked/{}/", at, i);
    const auto optional = [&](const char* name) {
      return c.contains(name) ? Cell::of_number(c.at(name).get<double>(), key + name) : Cell::of_text("-");
    };
    const auto band = [&](const char* q) {
      return c.contains("band_step_time_s") ? Cell::of_number(c.at("band_step_time_s").at(q).get<double>(),
                                                              key + "band_step_time_s/" + q)
                                            : Cell::of_text("-");
    };
    table.add_row({Cell::of_number(static_cast<double>(i + 1)), Cell::of_text(layout_text(c.at("settings"))),
                   Cell::of_number(c.at("step_time_s").get<double>(), key + "step_time_s"), optional("flow_step_time_s"),
                   band("p10"), band("p90"), Cell::of_number(c.at("tokens_per_s").get<double>(), key + "tokens_per_s"),
                   Cell::of_number(c.at("memory_headroom_gib").get<double>(), key + "memory_headroom_gib"),
                   optional("cost_per_trillion_tokens_usd"), Cell::of_number(100 * c.at("mfu").get<double>(), {}, 3)});
  }
  s.table(table);
}

void ladder(Report& report, const nlohmann::json& j) {
  auto& s = report.add_section("ladder", "Cluster sizes climbed");
  s.paragraph(fmt::format("{:.3g} tokens in {:g} days need {:.4g} tokens/s: a step of at most {:.3f} s. Below {} GPUs "
                          "even their peak FLOP/s cannot reach it.",
                          j.at("tokens").get<double>(), j.at("days").get<double>(), j.at("required_tokens_per_s").get<double>(),
                          j.at("goal_step_time_s").get<double>(), j.at("floor_gpus").get<std::int64_t>()));
  BarChart chart;
  chart.title = "Best step time at each size";
  chart.category_label = "GPUs";
  chart.value_axis = {"Step time", "s"};
  chart.references.push_back({"goal", j.at("goal_step_time_s").get<double>()});
  BarSeries best;
  const bool on_goodput = j.value("sized_on_goodput", false);
  std::vector<Column> columns{{"GPUs", ""}, {"Candidates", "layouts"}, {"Simulated", "layouts"}, {"Best step", "s"},
                              {"Meets the goal", "ideal throughput"}};
  if (on_goodput) {
    columns.push_back({"Effective training time", "% (P50)"});
    columns.push_back({"Meets the goal", "on goodput"});
    s.paragraph(fmt::format("Sized on goodput: a size that meets the goal on ideal throughput is run for the whole {:g} "
                            "days under the scenario's reliability: block (failures, checkpoints, restarts), and must "
                            "meet it at its P50 goodput. On ideal throughput the answer would be {} GPUs.",
                            j.at("days").get<double>(),
                            j.at("ideal_gpus").is_null() ? std::string("none") : std::to_string(j.at("ideal_gpus").get<std::int64_t>())));
  }
  Table table(columns);
  const auto& tried = j.at("sizes_tried");
  for (std::size_t i = 0; i < tried.size(); ++i) {
    const auto& t = tried[i];
    const auto key = fmt::format("/sizes_tried/{}/", i);
    chart.categories.push_back(std::to_string(t.at("gpus").get<std::int64_t>()));
    best.values.push_back(t.value("best_step_time_s", 0.0));
    std::vector<Cell> row{Cell::of_number(t.at("gpus").get<double>(), key + "gpus"),
                          Cell::of_number(t.at("candidates").get<double>(), key + "candidates"),
                          Cell::of_number(t.at("simulated").get<double>(), key + "simulated"),
                          t.contains("best_step_time_s")
                              ? Cell::of_number(t.at("best_step_time_s").get<double>(), key + "best_step_time_s")
                              : Cell::of_text("none can"),
                          Cell::of_text(t.at("meets").get<bool>() ? "yes" : "no")};
    if (on_goodput) {
      const bool ran = t.contains("effective_training_time_p50");
      row.push_back(ran ? Cell{display_number(100 * t.at("effective_training_time_p50").get<double>(), 3),
                               t.at("effective_training_time_p50").get<double>(), key + "effective_training_time_p50"}
                        : Cell::of_text("not run"));
      row.push_back(Cell::of_text(ran && t.at("meets_goodput").get<bool>() ? "yes" : "no"));
    }
    table.add_row(std::move(row));
  }
  chart.series.push_back(best);
  s.chart(bar_chart(chart), "The fastest simulated layout at each cluster size against the goal's step time (0: no layout's "
                            "lower bound could meet it)");
  s.table(table);
}

}  // namespace

void write_plan_report(const std::string& path, const nlohmann::json& plan, const RunInfo& info) {
  const bool by_goal = plan.contains("sizes_tried");
  Report report(by_goal ? "Cluster-size plan" : "Layout plan", info.scenario_name);
  auto& summary = report.add_section("verdict", "Verdict");
  if (by_goal && plan.at("gpus").is_null()) {
    summary.verdict({"No cluster size tried meets the goal: raise --max-gpus, or relax --fix."});
    ladder(report, plan);
  } else {
    const std::string at = by_goal ? "/plan" : "";
    const auto& p = by_goal ? plan.at("plan") : plan;
    verdict(summary, p, at);
    if (by_goal) ladder(report, plan);
    space(report, p, at);
    front(report, p);
    ranking(report, p, at);
  }
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
