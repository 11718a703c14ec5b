#include "sweep/sweep_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.hpp"
#include "core/wall_clock.hpp"
#include "core/parallel_for.hpp"
#include "sweep/pareto.hpp"

namespace k3::sweep {

PointResult evaluate_point(std::size_t index, const GridPoint& settings, const Simulate& simulate) {
  PointResult r;
  r.index = index;
  r.settings = settings;
  try {
    r.step = simulate(settings);
    r.ran = true;
    r.feasible = r.step.at("fits_in_memory").get<bool>();
    if (!r.feasible) r.reason = "does not fit in memory";
  } catch (const core::InputError& e) {
    r.reason = e.what();
  } catch (const std::exception& e) {
    r.reason = std::string("internal error: ") + e.what();
  }
  return r;
}

std::vector<PointResult> run_points(const std::vector<GridPoint>& points, const Simulate& simulate, int jobs,
                                    core::Progress* progress) {
  std::vector<PointResult> results(points.size());
  core::parallel_for(points.size(), jobs, [&](std::size_t i) {
    results[i] = evaluate_point(i, points[i], simulate);
    if (progress) progress->done_one();
  });
  if (progress) progress->finish();
  return results;
}

void mark_pareto(std::vector<PointResult>& results, ParetoX x) {
  std::vector<Objective2> objectives;
  std::vector<std::size_t> owner;
  for (std::size_t i = 0; i < results.size(); ++i) {
    auto& r = results[i];
    r.pareto = false;
    if (!r.feasible) continue;
    double xv = 0;
    if (x == ParetoX::gpus) {
      xv = r.step.at("gpus").get<double>();
    } else if (r.step.contains("cost_per_trillion_tokens_usd")) {
      xv = r.step.at("cost_per_trillion_tokens_usd").get<double>();
    } else {
      continue;
    }
    objectives.push_back({xv, r.step.at("step_time_s").get<double>()});
    owner.push_back(i);
  }
  const auto front = pareto_front(objectives);
  for (std::size_t k = 0; k < front.size(); ++k) results[owner[k]].pareto = front[k];
}

}  // namespace k3::sweep
