#include <fmt/format.h>

#include "reports/sections/plan.hpp"

namespace k3::reports {

namespace {

void serve_verdict(Section& s, const nlohmann::json& j) {
  const auto& g = j.at("goal");
  const std::string goal = fmt::format("{:g} requests/s with TTFT <= {:g} s and TPOT <= {:g} ms for {:.0f}% of requests",
                                       g.at("rate_per_s").get<double>(), g.at("ttft_s").get<double>(),
                                       1e3 * g.at("tpot_s").get<double>(), 100 * g.at("attainment").get<double>());
  if (j.at("chosen_nodes").is_null()) {
    s.verdict({"No deployment tried meets " + goal + ": raise --max-gpus, or relax the SLO."});
    return;
  }
  const auto& best = j.at("ranked").at(0);
  const auto& r = best.at("result");
  const int nodes = j.at("chosen_nodes").get<int>();
  std::size_t unsimulated = 0;  // below the answer: passed the rules, not simulated (max_per_size)
  for (const auto& t : j.at("tried")) {
    if (t.at("nodes").get<int>() < nodes) unsimulated += t.at("survivors").get<std::size_t>() - t.at("simulated").get<std::size_t>();
  }
  s.verdict({fmt::format("The smallest deployment that serves {} is {} nodes ({} GPUs): {}.", goal, nodes,
                         nodes * j.at("gpus_per_node").get<int>(), best.at("deployment").at("text").get<std::string>()),
             fmt::format("It meets the SLO for {:.1f}% of requests (P90 TTFT {:.0f} ms, P90 TPOT {:.1f} ms). At fewer "
                         "nodes no simulated deployment met it and the rules refused the others{}.",
                         100 * r.at("slo_attainment").get<double>(), 1e3 * r.at("ttft").at("p90_s").get<double>(),
                         1e3 * r.at("tpot").at("p90_s").get<double>(),
                         unsimulated == 0 ? std::string()
                                          : fmt::format(", except {} that passed the rules and were not simulated "
                                                        "(--exhaustive simulates every one)",
                                                        unsimulated))});
  s.cards({{"Nodes", static_cast<double>(nodes), "nodes", "/chosen_nodes", "the smallest that meets the goal"},
           {"SLO met", r.at("slo_attainment").get<double>(), "%", "/ranked/0/result/slo_attainment", "of measured requests", 100},
           {"Goodput", r.at("goodput_requests_per_s").get<double>(), "requests/s", "/ranked/0/result/goodput_requests_per_s", ""}});
}

void sizes(Report& report, const nlohmann::json& j) {
  auto& s = report.add_section("ladder", "Node counts climbed");
  const auto& d = j.at("demand");
  s.paragraph(fmt::format("The stream: {} requests, mean prompt {:.0f} tokens and output {:.0f} tokens, {} prompt "
                          "tokens/s to compute and {} output tokens/s. Rules refuse a deployment without simulating "
                          "it when its weights or the largest request do not fit, when one sequence per rank decodes "
                          "slower than the TPOT, or when a phase at its largest batch carries fewer tokens/s than the stream.",
                          d.at("requests").get<std::size_t>(), d.at("mean_prompt_tokens").get<double>(),
                          d.at("mean_output_tokens").get<double>(), display_number(d.at("prompt_tokens_per_s").get<double>()),
                          display_number(d.at("output_tokens_per_s").get<double>())));
  BarChart chart;
  chart.title = "Best SLO attainment at each node count";
  chart.category_label = "Nodes";
  chart.value_axis = {"SLO attainment", "%"};
  chart.references.push_back({"goal", 100 * j.at("goal").at("attainment").get<double>()});
  BarSeries best;
  Table table({{"Nodes", ""}, {"Deployments", ""}, {"Refused by rules", ""}, {"Simulated", ""}, {"Best SLO met", "%"},
               {"Refusals", ""}});
  const auto& tried = j.at("tried");
  for (std::size_t i = 0; i < tried.size(); ++i) {
    const auto& t = tried[i];
    const auto key = fmt::format("/tried/{}/", i);
    std::size_t refused = 0;
    std::string rules;
    for (const auto& [rule, c] : t.at("pruned").items()) {
      refused += c.at("candidates").get<std::size_t>();
      rules += fmt::format("{}{} {}", rules.empty() ? "" : ", ", rule, c.at("candidates").get<std::size_t>());
    }
    chart.categories.push_back(std::to_string(t.at("nodes").get<int>()));
    best.values.push_back(100 * t.value("best_slo_attainment", 0.0));
    table.add_row({Cell::of_number(t.at("nodes").get<double>(), key + "nodes"),
                   Cell::of_number(t.at("candidates").get<double>(), key + "candidates"),
                   Cell::of_number(static_cast<double>(refused)), Cell::of_number(t.at("simulated").get<double>(), key + "simulated"),
                   t.contains("best_slo_attainment") ? Cell::of_number(100 * t.at("best_slo_attainment").get<double>())
                                                     : Cell::of_text("-"),
                   Cell::of_text(rules)});
  }
  chart.series.push_back(best);
  s.chart(bar_chart(chart), "The best share of requests within the SLO among the deployments simulated at each node count "
                            "(0: every deployment refused by a rule)");
  s.table(table);
}

void ranking(Report& report, const nlohmann::json& j) {
  if (j.at("ranked").empty()) return;
  auto& s = report.add_section("ranking", "Deployments simulated at the answer");
  Table table({{"Rank", ""},
               {"Deployment", ""},
               {"SLO met", "%"},
               {"Goodput", "requests/s"},
               {"TTFT P90", "ms"},
               {"TPOT P90", "ms"},
               {"Cost per 1M output tokens", "USD"}});
  table.caption("Most goodput first, then the least P99 latency over SLO; capacity margins decided the order they were simulated in");
  const auto& ranked = j.at("ranked");
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const auto& c = ranked[i];
    if (!c.contains("result")) continue;
    const auto& r = c.at("result");
    const auto key = fmt::format("/ranked/{}/result/", i);
    table.add_row({Cell::of_number(static_cast<double>(i + 1)), Cell::of_text(c.at("deployment").at("text").get<std::string>()),
                   Cell::of_number(100 * r.at("slo_attainment").get<double>()),
                   Cell::of_number(r.at("goodput_requests_per_s").get<double>(), key + "goodput_requests_per_s"),
                   Cell::of_number(1e3 * r.at("ttft").at("p90_s").get<double>()),
                   Cell::of_number(1e3 * r.at("tpot").at("p90_s").get<double>()),
                   r.contains("usd_per_million_output_tokens") && !r.at("usd_per_million_output_tokens").is_null()
                       ? Cell::of_number(r.at("usd_per_million_output_tokens").get<double>(), key + "usd_per_million_output_tokens")
                       : Cell::of_text("-")});
  }
  s.table(table);
}

}  // namespace

void write_serve_plan_report(const std::string& path, const nlohmann::json& plan, const RunInfo& info) {
  Report report("Serving deployment plan", info.scenario_name);
  serve_verdict(report.add_section("verdict", "Verdict"), plan);
  sizes(report, plan);
  ranking(report, plan);
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
