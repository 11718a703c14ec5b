#pragma once
// Sweep results as CSV (one row per point: settings, feasibility, reason, Pareto mark, headline numbers)
// and as JSON (every point with its full `k3sim run --json` result). Both are written by rank 0 only and
// are byte-identical whether the points ran on threads or MPI ranks.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sweep/grid.hpp"
#include "sweep/point_result.hpp"
#include "sweep/sweep_runner.hpp"

namespace k3::sweep {

struct SweepSummary {
  std::string scenario;
  std::vector<GridAxis> axes;
  ParetoX pareto_x = ParetoX::gpus;
};

// One CSV field: quoted (inner quotes doubled) when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& s);

nlohmann::json sweep_to_json(const SweepSummary& s, const std::vector<PointResult>& results);
std::string sweep_to_csv(const SweepSummary& s, const std::vector<PointResult>& results);
// CSV when the path ends in .csv, JSON when it ends in .json; InputError naming --out otherwise.
void write_sweep(const std::string& path, const SweepSummary& s, const std::vector<PointResult>& results);

}  // namespace k3::sweep
