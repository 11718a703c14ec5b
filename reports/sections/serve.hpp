#pragma once
// `k3sim serve --report`: the serving run as a self-contained report, drawn from the command's JSON so that
// --json and --report hold the same numbers (every card and cell keyed with its JSON pointer).
//
// JSON read: one result (results/serve_output.hpp, serve_to_json) or a curve {"name", "curve": [{"rate_per_s",
// "result": <result>}]}; of a curve, the cards, KV plot and phase breakdown show the point with the most goodput.
#include <nlohmann/json.hpp>

#include <string>

#include "reports/report.hpp"

namespace k3::reports {

// Sections "summary" (cards), "curve" (with a curve: TTFT/TPOT percentiles and throughput per node against the
// arrival rate), "kv" (KV pages in use over time), "phases" (per-phase iteration breakdown) and the run.
// Throws core::InputError naming --report when the file cannot be written.
void write_serve_report(const std::string& path, const nlohmann::json& serve, RunInfo info);

}  // namespace k3::reports
