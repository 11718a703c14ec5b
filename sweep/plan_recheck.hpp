#pragma once
// A plan candidate run as a step: the overrides and step options the search simulates it with, and the last
// phase of plan_layouts, the top candidates again on the flow network with their uncertainty bands.
#include <cstddef>
#include <string>
#include <vector>

#include "sim/input/scenario.hpp"
#include "sim/train/step_reuse.hpp"
#include "sim/train/step_simulator.hpp"
#include "sweep/plan_search.hpp"

namespace k3::sweep {

// What the candidate at `point` runs with: the base's --set, the --fix keys, the point's settings, `network`.
std::vector<input::Override> candidate_overrides(const PlanBase& base, const PlanOptions& o, const GridPoint& point,
                                                const char* network);
// One thread per candidate (the candidates share the cores), stopped over memory, sharing `reuse`.
train::StepOptions candidate_step_options(train::StepReuse& reuse);

// The candidates `top[indices]` on the flow network as one batch on `threads` threads, each result as JSON text
// (flow_step_time_s and, with band samples, band and samples). Candidates share passes through `reuse`'s replay
// memo: a pass one candidate finds another replaying is left to its finish, which by then finds it done.
std::vector<std::string> flow_rechecks(const PlanBase& base, const PlanOptions& o, const std::vector<PlanCandidate>& top,
                                       const std::vector<std::size_t>& indices, int threads, train::StepReuse& reuse);

// Each band sample ranks the top K; how many keep the flow network's winner first, and its whole order.
void band_verdict(const std::vector<double>& flow_s, const std::vector<std::vector<double>>& samples, int n,
                  PlanResult& out);

}  // namespace k3::sweep
