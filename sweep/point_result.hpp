#pragma once
// The outcome of one sweep point: its settings, whether it ran and fits, and the step result as the
// `k3sim run --json` contract writes it (so a sweep row and a lone run compare number for number).
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "sweep/grid.hpp"

namespace k3::sweep {

struct PointResult {
  std::size_t index = 0;     // position in the grid
  GridPoint settings;
  bool ran = false;          // false: the point failed (InputError or other error) before a result
  bool feasible = false;     // ran and fits in memory
  std::string reason;        // why not feasible ("does not fit in memory", the InputError message)
  nlohmann::json step;       // results::step_to_json of the result when ran, null otherwise
  bool pareto = false;       // on the front of the feasible points
};

nlohmann::json point_to_json(const PointResult& p);
PointResult point_from_json(const nlohmann::json& j);

}  // namespace k3::sweep
