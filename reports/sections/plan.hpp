#pragma once
// HTML report of `k3sim plan` (--gpus or --tokens/--days), built from the JSON its --json prints: the verdict
// (the best layout, its flow-network step and band, what the runner-up loses on), the pruned-space summary
// (how many candidates, how many refused by which rule, with an example each), the simulated candidates as a
// scatter of step time against memory per GPU with its Pareto front, the ranking, and for --tokens/--days the
// cluster sizes climbed. `plan --serve` has its own (write_serve_plan_report).
#include <nlohmann/json.hpp>

#include <string>

#include "reports/report.hpp"

namespace k3::reports {

// `plan` is plan's JSON output (sweep::plan_to_json, or sweep::cluster_plan_to_json for --tokens/--days).
void write_plan_report(const std::string& path, const nlohmann::json& plan, const RunInfo& info);

// `plan --serve`'s report (serve_plan.cpp), from its JSON (sweep::serve_plan_to_json): the verdict, the node counts
// climbed with what each rule refused, and the deployments simulated at the answer.
void write_serve_plan_report(const std::string& path, const nlohmann::json& plan, const RunInfo& info);

}  // namespace k3::reports
