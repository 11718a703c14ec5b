#pragma once
// The report of one simulated training step (`k3sim run --report`) and of several side by side
// (`k3sim compare`), drawn from the step's JSON (results::step_to_json, the --json contract), so the report
// and --json cannot disagree: every card and table number carries the JSON pointer it came from.
//
// The timeline is the one thing not in the JSON: it comes from StepResult::trace (a plain struct).
// A trace can hold hundreds of thousands of spans (K3 on 2048 GPUs); the Gantt is thinned to stay
// readable and small: at most kMaxGanttRanks pipeline ranks (spread evenly, first and last kept), and on
// each track neighbouring spans of the same kind closer than half a pixel are merged into one mark whose
// tooltip says how many passes it holds.
#include <nlohmann/json.hpp>

#include <span>
#include <string>
#include <vector>

#include "reports/report.hpp"
#include "sim/train/step_result.hpp"

namespace k3::reports {

inline constexpr int kMaxGanttRanks = 8;
inline constexpr std::size_t kMaxGanttMarksPerTrack = 600;

// Summary cards: step time, tokens/s, TFLOP/s per GPU, MFU, memory per GPU with its headroom, and the
// cost (USD, when priced) or GPU-hours per trillion tokens. `key_prefix` is the pointer of `step` inside
// the command's --json output ("" when the step is the whole output).
std::vector<Card> step_cards(const nlohmann::json& step, const std::string& key_prefix = "");

// Sections "breakdown", "uncertainty" (when the step has a band), "timeline" (when `trace` is not empty),
// "memory" and "links" for one step.
void add_step_section(Report& report, const nlohmann::json& step, std::span<const train::TraceSpan> trace = {},
                      const std::string& key_prefix = "");

// Section "uncertainty" (when `step` has a "band"): P10/P50/P90 table and the tornado chart of the
// sensitivity ranking (step_uncertainty.cpp).
void add_uncertainty_section(Report& report, const nlohmann::json& step, const std::string& key_prefix = "");

// Section "comparison": one table row per variant (keyed when key_prefixes is given: key_prefixes[i] is
// where steps[i] sits in the command's --json output), step time stacked by category per variant, memory
// per GPU stacked by category against each variant's HBM, and throughput and MFU side by side.
// `names` labels the variants (same length as steps).
void add_step_comparison_section(Report& report, const std::vector<nlohmann::json>& steps,
                                 const std::vector<std::string>& names,
                                 const std::vector<std::string>& key_prefixes = {});

// The pipeline timeline as a Gantt chart, thinned as described above (exposed for tests).
GanttChart step_gantt(std::span<const train::TraceSpan> trace);

// StepResult::assumptions are sentences "what: source" (first colon) or "topic: what (source)"; split for the
// assumption table (a short "topic: " head becomes the name, the rest the value).
Assumption split_assumption(const std::string& text);

// `k3sim run --report path`: cards, the step sections and the scenario as run (YAML, version, seed,
// assumptions). `step` must be results::step_to_json(result). Throws core::InputError naming --report when
// the file cannot be written.
// `trace_path`: the --trace file written beside it, named in the timeline section ("" when none).
void write_step_report(const std::string& path, const train::StepResult& result, const nlohmann::json& step,
                       const std::string& command, const std::string& trace_path = "");

}  // namespace k3::reports
