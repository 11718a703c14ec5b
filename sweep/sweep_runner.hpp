#pragma once
// Runs the points of a sweep on a pool of threads (each point an independent simulation owning its
// objects), keeps every failure as a result with its reason, and reports progress.
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "sweep/point_result.hpp"

namespace k3::sweep {

// Simulates one point and returns results::step_to_json of its StepResult; may throw.
using Simulate = std::function<nlohmann::json(const GridPoint&)>;

// Never throws for a failing point: core::InputError and other exceptions become ran = false with the
// message as the reason; a result that exceeds HBM is ran, infeasible, "does not fit in memory".
PointResult evaluate_point(std::size_t index, const GridPoint& settings, const Simulate& simulate);

// Progress on a terminal: one bar redrawn in place with rate and ETA; elsewhere: plain lines, about
// twenty over the run. Thread-safe.
class Progress {
 public:
  // `label` begins each plain line ("sweep", "plan").
  Progress(std::size_t total, std::FILE* out, bool terminal, std::string label = "sweep");
  void done_one();
  // For MPI: rank 0 sees how many points were handed out, not when other ranks finish them.
  void set_done(std::size_t done);
  void finish();

 private:
  void draw(bool last);
  std::size_t total_;
  std::size_t done_ = 0;
  std::FILE* out_;
  bool terminal_;
  std::string label_;
  double start_s_;
  double last_draw_s_ = -1;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t printed_done_ = kNone;  // plain-line mode: count on the last printed line
  std::mutex mutex_;
};

// Runs all points with `jobs` threads (>= 1), results in grid order.
std::vector<PointResult> run_points(const std::vector<GridPoint>& points, const Simulate& simulate, int jobs,
                                    Progress* progress);

enum class ParetoX { gpus, cost };
// Marks the front over (x, step time) among the feasible points. ParetoX::cost needs a price: points
// without cost_per_trillion_tokens_usd are then left off the front.
void mark_pareto(std::vector<PointResult>& results, ParetoX x);

}  // namespace k3::sweep
