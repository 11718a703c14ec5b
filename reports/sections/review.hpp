#pragma once
// The review report of `k3sim compare`: what an infra review reads. It opens with the verdict in words and
// figures (which variant wins on step time, cost per trillion tokens and memory headroom, by how much, the
// causes that account for most of the difference, whether it holds across the uncertainty band), then one
// section per review question, chart first and table after: step time (diverging breakdown deltas), the
// all-to-all (bytes per link class, dedup, one EP group's traffic matrix, the latent saving), load
// balancing (MaxVio per step against the noise floor, what the rest costs), KV cache and state against
// context, memory per GPU against HBM, the pipeline timeline of one step, and the assumptions with
// their sources, grouped by kind.
//
// Everything is drawn from compare's --json output (with its "review" key, sweep/variant_review.hpp) so
// the page and --json cannot disagree; the timeline alone comes from the first variant's
// StepResult::trace.
#include <nlohmann/json.hpp>

#include <span>
#include <string>

#include "reports/report.hpp"
#include "sim/train/step_result.hpp"

namespace k3::reports {

// Throws core::InputError naming --report when the file cannot be written.
void write_compare_report(const std::string& path, const nlohmann::json& comparison,
                          std::span<const train::TraceSpan> trace, const RunInfo& info);

}  // namespace k3::reports
