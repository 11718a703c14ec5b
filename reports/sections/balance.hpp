#pragma once
// The load-balancing results of `k3sim balance` as JSON and as report sections, from one struct
// (balancing::BalanceRun), so --json and --report cannot disagree.
//
// JSON layout (numbers in the units their names say; MaxVio is a ratio):
//   {"runs": [{"model", "balancer", "bins", "tokens_per_step", "noise_floor", "steps_to_floor" (null when
//     never reached), "steady_maxvio_mean", "steady_maxvio_p99", "allreduce_bytes_per_layer",
//     "curve": [{"step", "max_vio", "gpu_max_over_mean", "bias_error_max", "bias_error_rms"}],
//     "last_expert_load": [tokens per expert]}]}
// Every number the report shows as a card or table cell carries its JSON pointer ("/runs/0/noise_floor").
#include <nlohmann/json.hpp>

#include <span>

#include "model/balancing/balance_experiment.hpp"
#include "reports/report.hpp"

namespace k3::reports {

nlohmann::json balance_json(std::span<const balancing::BalanceRun> runs);

// Adds section "balance": summary table, MaxVio per step (log axis) with each model's noise floor, tokens
// per GPU max/mean per step, and the sorted load per expert of the last batch.
void add_balance_section(Report& report, std::span<const balancing::BalanceRun> runs);

// `k3sim balance --report path`: summary cards, the balance section and the run as made. The assumptions
// behind the runs (model shapes, sign-SGD step, histogram bins) are appended to `info.assumptions`.
// Throws core::InputError naming --report when the file cannot be written.
void write_balance_report(const std::string& path, std::span<const balancing::BalanceRun> runs, RunInfo info);

}  // namespace k3::reports
