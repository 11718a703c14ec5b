#pragma once
// Runs the points of a sweep on a pool of threads (each point an independent simulation owning its
// objects), keeps every failure as a result with its reason, and reports progress.
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "core/progress.hpp"
#include "sweep/point_result.hpp"

namespace k3::sweep {

// Simulates one point and returns results::step_to_json of its StepResult; may throw.
using Simulate = std::function<nlohmann::json(const GridPoint&)>;

// Never throws for a failing point: core::InputError and other exceptions become ran = false with the
// message as the reason; a result that exceeds HBM is ran, infeasible, "does not fit in memory".
PointResult evaluate_point(std::size_t index, const GridPoint& settings, const Simulate& simulate);

// Runs all points with `jobs` threads (>= 1), results in grid order.
std::vector<PointResult> run_points(const std::vector<GridPoint>& points, const Simulate& simulate, int jobs,
                                    core::Progress* progress);

enum class ParetoX { gpus, cost };
// Marks the front over (x, step time) among the feasible points. ParetoX::cost needs a price: points
// without cost_per_trillion_tokens_usd are then left off the front.
void mark_pareto(std::vector<PointResult>& results, ParetoX x);

}  // namespace k3::sweep
