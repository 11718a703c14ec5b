#include "reports/sections/balance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "core/quantity.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

nlohmann::json balance_json(std::span<const balancing::BalanceRun> runs) {
  nlohmann::json out;
  out["runs"] = nlohmann::json::array();
  for (const auto& r : runs) {
    nlohmann::json j;
    j["model"] = r.model;
    j["balancer"] = r.balancer;
    j["bins"] = r.bins;
    j["tokens_per_step"] = r.tokens_per_step;
    j["noise_floor"] = r.noise_floor;
    j["steps_to_floor"] = r.steps_to_floor ? nlohmann::json(*r.steps_to_floor) : nlohmann::json(nullptr);
    j["steady_maxvio_mean"] = r.steady_maxvio_mean;
    j["steady_maxvio_p99"] = r.steady_maxvio_p99;
    j["allreduce_bytes_per_layer"] = r.allreduce_bytes_per_layer;
    j["curve"] = nlohmann::json::array();
    for (const auto& s : r.curve) {
      j["curve"].push_back({{"step", s.step},
                            {"max_vio", s.max_vio},
                            {"gpu_max_over_mean", s.gpu_max_over_mean},
                            {"bias_error_max", s.bias_error_max},
                            {"bias_error_rms", s.bias_error_rms}});
    }
    j["last_expert_load"] = r.last_expert_load;
    out["runs"].push_back(std::move(j));
  }
  return out;
}

namespace {

std::string run_name(const balancing::BalanceRun& r) { return r.model + " \u00b7 " + r.balancer; }

LineChart per_step_chart(std::span<const balancing::BalanceRun> runs, const std::string& title, const Axis& y,
                         const std::function<double(const balancing::BalanceStep&)>& value) {
  LineChart c;
  c.title = title;
  c.x_axis = {"Step", "", false};
  c.y_axis = y;
  for (const auto& r : runs) {
    LineSeries s{run_name(r), {}, {}};
    for (const auto& step : r.curve) {
      s.x.push_back(step.step);
      s.y.push_back(value(step));
    }
    c.series.push_back(std::move(s));
  }
  return c;
}

}  // namespace

void add_balance_section(Report& report, std::span<const balancing::BalanceRun> runs) {
  K3SIM_ASSERT(!runs.empty(), "balance section needs at least one run");
  Section& s = report.add_section("balance", "Load balancing: router bias convergence");
  s.paragraph(
      "MaxVio = (max - mean) / mean tokens per expert over the global batch, after each bias update. The noise "
      "floor is the MaxVio an ideal router with equal expected load per expert still shows on a batch of this "
      "size: no balancer can go below it.");

  Table t({{"Model", ""}, {"Balancer", ""}, {"Tokens per step", "tokens"}, {"Noise floor", "MaxVio"},
           {"Steps to floor", "steps"}, {"Steady MaxVio mean", "MaxVio"}, {"Steady MaxVio p99", "MaxVio"},
           {"All-reduce per layer", ""}});
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const std::string k = fmt::format("/runs/{}/", i);
    t.add_row({Cell::of_text(r.model), Cell::of_text(r.balancer), Cell::of_number(r.tokens_per_step, k + "tokens_per_step"),
               Cell::of_number(r.noise_floor, k + "noise_floor"),
               r.steps_to_floor ? Cell::of_number(*r.steps_to_floor, k + "steps_to_floor") : Cell::of_text("not reached"),
               Cell::of_number(r.steady_maxvio_mean, k + "steady_maxvio_mean"),
               Cell::of_number(r.steady_maxvio_p99, k + "steady_maxvio_p99"),
               Cell{core::format_bytes(r.allreduce_bytes_per_layer), r.allreduce_bytes_per_layer,
                    k + "allreduce_bytes_per_layer"}});
  }
  t.caption("Steady = mean and 99th percentile over the second half of the steps.");
  s.table(t);

  LineChart maxvio = per_step_chart(runs, "MaxVio per step", {"MaxVio", "ratio", true},
                                    [](const balancing::BalanceStep& st) { return st.max_vio; });
  std::vector<std::string> floors_drawn;
  for (const auto& r : runs) {
    if (std::find(floors_drawn.begin(), floors_drawn.end(), r.model) != floors_drawn.end()) continue;
    floors_drawn.push_back(r.model);
    maxvio.references.push_back({"noise floor " + r.model, r.noise_floor});
  }
  s.chart(line_chart(maxvio), "Log scale. Dashed lines: the noise floor of each model's batch.");
  s.chart(line_chart(per_step_chart(runs, "Hottest GPU of the EP group", {"Tokens per GPU, max / mean", "ratio", false},
                                    [](const balancing::BalanceStep& st) { return st.gpu_max_over_mean; })),
          "What imbalance costs: the step waits for the GPU with the most tokens.");

  LineChart load;
  load.title = "Load per expert in the last batch, sorted";
  load.x_axis = {"Expert rank (hottest first)", "", false};
  load.y_axis = {"Tokens / mean tokens", "ratio", false};
  for (const auto& r : runs) {
    if (r.last_expert_load.empty()) continue;
    std::vector<double> sorted = r.last_expert_load;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
    LineSeries series{run_name(r), {}, {}};
    for (std::size_t e = 0; e < sorted.size(); ++e) {
      series.x.push_back(static_cast<double>(e));
      series.y.push_back(mean > 0 ? sorted[e] / mean : 0.0);
    }
    load.series.push_back(std::move(series));
  }
  load.references = {{"mean", 1.0}};
  if (!load.series.empty()) s.chart(line_chart(load), "A flat line at 1 is perfect balance.");
}

void write_balance_report(const std::string& path, std::span<const balancing::BalanceRun> runs, RunInfo info) {
  K3SIM_ASSERT(!runs.empty(), "balance report needs at least one run");
  std::vector<std::string> models, balancers;
  for (const auto& r : runs) {
    if (std::find(models.begin(), models.end(), r.model) == models.end()) models.push_back(r.model);
    if (std::find(balancers.begin(), balancers.end(), r.balancer) == balancers.end()) balancers.push_back(r.balancer);
  }
  const auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  Report report("Router-bias load balancing", "Models: " + join(models) + ". Balancers: " + join(balancers) + ".");

  // One card per model: the floor, and the balancer that gets closest to it in steady state.
  Section& summary = report.add_section("summary", "Summary");
  std::vector<Card> cards;
  for (const auto& m : models) {
    std::size_t best = runs.size();
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (runs[i].model != m) continue;
      if (best == runs.size() || runs[i].steady_maxvio_mean < runs[best].steady_maxvio_mean) best = i;
    }
    const auto& r = runs[best];
    cards.push_back({"Noise floor " + m, r.noise_floor, "MaxVio", fmt::format("/runs/{}/noise_floor", best),
                     fmt::format("{} tokens per step", display_number(r.tokens_per_step))});
    cards.push_back({"Best steady MaxVio " + m, r.steady_maxvio_mean, "MaxVio",
                     fmt::format("/runs/{}/steady_maxvio_mean", best),
                     fmt::format("{}, {:.2f} x the floor", r.balancer, r.steady_maxvio_mean / r.noise_floor)});
  }
  summary.cards(cards);
  add_balance_section(report, runs);

  for (const auto& r : runs) {
    if (r.model == "k3" && std::none_of(info.assumptions.begin(), info.assumptions.end(),
                                        [](const Assumption& a) { return a.name == "k3 routing"; }))
      info.assumptions.push_back({"k3 routing", "896 routed experts, top-16, latent 3584", "arXiv:2607.24653 (DESIGN.md)"});
    if (r.model == "k3-448" && std::none_of(info.assumptions.begin(), info.assumptions.end(),
                                            [](const Assumption& a) { return a.name == "k3-448 routing"; }))
      info.assumptions.push_back({"k3-448 routing", "448 routed experts, top-8, width 7168 (iso-cost alternative)",
                                  "DESIGN.md, seeds"});
  }
  info.assumptions.push_back({"Sign-SGD bias step u (default)", "0.001", "Wang et al., arXiv:2408.15664"});
  info.assumptions.push_back({"QB histogram bins (default)", "1000 (as good as 10000)", "K3 report, arXiv:2607.24653 (DESIGN.md)"});
  info.assumptions.push_back({"Router", "synthetic: topic mixture with per-expert popularity offsets", "k3sim model"});
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
