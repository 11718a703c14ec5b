#include "cli/commands/plan_serve.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <yaml-cpp/yaml.h>

#include "cli/commands/planned_scenario.hpp"
#include "core/error.hpp"
#include "core/quantity.hpp"
#include "core/text_file.hpp"
#include "core/version.hpp"
#include "reports/sections/plan.hpp"
#include "sim/input/scenario.hpp"
#include "sim/input/serve_scenario.hpp"
#include "sweep/serve_plan.hpp"

namespace k3::cli {

namespace {

void print_serve_plan(const ServePlanCliOptions& o, const sweep::ServePlanResult& r) {
  const auto& g = r.goal;
  fmt::print("{}: {:g} requests/s (Poisson), TTFT <= {:.3f} s and TPOT <= {:.1f} ms for {:.0f}% of requests\n", o.scenario,
             g.rate_per_s, g.ttft_s, 1e3 * g.tpot_s, 100 * g.attainment);
  fmt::print("the stream: {} requests, mean prompt {:.0f} tokens, mean output {:.0f} tokens; {} prompt tokens/s to "
             "compute, {} output tokens/s\n",
             r.demand.requests, r.demand.mean_prompt_tokens, r.demand.mean_output_tokens,
             core::format_count(r.demand.prompt_tokens_per_s), core::format_count(r.demand.output_tokens_per_s));
  for (const auto& t : r.tried) {
    std::size_t pruned = 0;
    for (const auto& [rule, c] : t.pruned) pruned += c.candidates;
    fmt::print("  {:>4} nodes: {:>5} deployments, {:>5} refused by rules, {:>3} simulated in {:>6.1f} s: {}\n", t.nodes,
               t.candidates, pruned, t.simulated, t.wall_s,
               t.best_attainment ? fmt::format("best SLO attainment {:.1f}%{}", 100 * *t.best_attainment,
                                               t.meets ? ", meets the goal" : "")
                                 : std::string("none can meet the goal"));
  }
  if (!r.tried.empty()) {
    fmt::print("\nrefused without simulating, by rule (last size tried, {} nodes):\n", r.tried.back().nodes);
    for (const auto& [rule, c] : r.tried.back().pruned) fmt::print("  {:<11} {:>5}  e.g. {}\n", rule, c.candidates, c.example);
  }
  if (!r.chosen_nodes) {
    fmt::print("\nno deployment of up to {} GPUs meets the goal: raise --max-gpus, or relax the SLO\n", o.max_gpus);
    return;
  }
  std::size_t unsimulated = 0;
  for (const auto& t : r.tried) unsimulated += t.nodes < *r.chosen_nodes ? t.survivors - t.simulated : 0;
  fmt::print("\nsmallest deployment: {} nodes ({} GPUs){}\n\n", *r.chosen_nodes, *r.chosen_nodes * r.gpus_per_node,
             unsimulated == 0 ? std::string()
                              : fmt::format("; {} deployments of fewer nodes passed the rules but were not simulated "
                                            "(--exhaustive simulates them)",
                                            unsimulated));
  std::size_t width = 24;
  for (const auto& c : r.ranked) width = std::max(width, sweep::deployment_text(c.deployment, r.gpus_per_node).size());
  fmt::print(" {:>4}  {:<{}} {:>10} {:>14} {:>11} {:>11} {:>14} {:>10}\n", "rank", "deployment", width, "SLO met",
             "goodput (r/s)", "TTFT p90", "TPOT p90", "out tok/s/GPU", "$ / 1M out");
  int rank = 0;
  for (const auto& c : r.ranked) {
    const auto text = sweep::deployment_text(c.deployment, r.gpus_per_node);
    if (!c.result) {
      fmt::print(" {:>4}  {:<{}} refused by the simulator: {}\n", "-", text, width, c.why_not);
      continue;
    }
    const auto& s = *c.result;
    fmt::print(" {:>4}  {:<{}} {:>9.1f}% {:>14.2f} {:>9.0f} ms {:>8.1f} ms {:>14.1f} {:>10}{}\n", ++rank, text, width,
               100 * s.slo_attainment, s.goodput_requests_per_s, 1e3 * s.ttft.p90, 1e3 * s.tpot.p90,
               s.output_tokens_per_s / std::max(1, s.gpus),
               s.usd_per_million_output_tokens ? fmt::format("{:.3f}", *s.usd_per_million_output_tokens) : "-",
               c.meets ? "" : "  (misses)");
  }
}

// The base serving scenario with the chosen deployment, the goal's arrivals and SLO and the cluster size.
void write_best_deployment(const ServePlanCliOptions& o, const std::string& text, const sweep::ServePlanResult& r) {
  auto root = YAML::Load(text);
  for (const auto& s : o.sets) input::apply_override(root, input::parse_override(s));
  const auto& best = r.ranked.front();
  const auto& d = best.deployment;
  const auto instance = [](const serve::InstanceSpec& is, int count) {
    YAML::Node n;
    n["nodes"] = is.nodes;
    n["attention_dp"] = is.attention_dp;
    n["redundant_experts"] = is.redundant_experts;
    n["instances"] = count;
    return n;
  };
  YAML::Node dep;
  if (d.kind == serve::DeploymentKind::colocated) {
    dep["kind"] = "colocated";
    dep["instance"] = instance(d.prefill, d.prefill_instances);
  } else {
    dep["kind"] = "disaggregated";
    dep["prefill"] = instance(d.prefill, d.prefill_instances);
    dep["decode"] = instance(d.decode, d.decode_instances);
  }
  root["deployment"] = dep;
  root["cluster"]["nodes"] = *r.chosen_nodes;
  YAML::Node arrival;
  arrival["kind"] = "poisson";
  arrival["rate_per_s"] = r.goal.rate_per_s;
  root["workload"]["arrival"] = arrival;
  root["slo"]["ttft_s"] = r.goal.ttft_s;
  root["slo"]["tpot_s"] = r.goal.tpot_s;
  write_planned_scenario(o.write_best, root, o.scenario, "the smallest deployment that meets its goal");
}

}  // namespace

int plan_serving_goal(const ServePlanCliOptions& o) {
  const std::string text = core::read_text_file(o.scenario, "a serving scenario YAML file (see scenarios/README.md)");
  if (!input::is_serve_scenario(o.scenario)) {
    throw core::InputError({o.scenario, "deployment", 0}, "--serve plans a serving deployment; this is a training scenario",
                           "a serving scenario (with a top-level deployment:, scenarios/serving/)");
  }
  const auto resolve = [&](int nodes) {
    auto sets = o.sets;
    if (nodes > 0) sets.push_back(fmt::format("cluster.nodes={}", nodes));
    return input::load_serve_inputs(o.scenario, sets, o.profile);
  };
  sweep::ServePlanOptions options;
  const auto base = resolve(0);
  options.goal = {o.rate_per_s, o.ttft_s.value_or(base.spec.slo.ttft_s), o.tpot_s.value_or(base.spec.slo.tpot_s),
                  o.attainment};
  options.max_gpus = o.max_gpus;
  options.exhaustive = o.exhaustive;
  options.threads = o.threads;
  options.progress = o.json || ::isatty(STDERR_FILENO) == 0 ? nullptr : stderr;
  const auto r = sweep::plan_serving(options, resolve);
  const auto j = sweep::serve_plan_to_json(r);
  if (!o.report.empty()) {
    reports::RunInfo info;
    info.command = o.command;
    info.version = std::string(core::version_string());
    info.scenario_name = o.scenario;
    info.scenario_text = text;
    info.seed = base.spec.seed;  // the request stream's
    reports::write_serve_plan_report(o.report, j, info);
  }
  if (o.json) {
    fmt::print("{}\n", j.dump(1));
  } else {
    print_serve_plan(o, r);
  }
  if (!o.write_best.empty()) {
    if (!r.chosen_nodes) {
      throw core::InputError({"--write-best", "", 0}, "no deployment meets the goal, so there is none to write",
                             "raise --max-gpus, or relax the SLO");
    }
    write_best_deployment(o, text, r);
  }
  return 0;
}

}  // namespace k3::cli
