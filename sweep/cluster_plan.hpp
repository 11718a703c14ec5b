#pragma once
// `k3sim plan --tokens T --days D`: the smallest cluster that trains T tokens in D days, and its best layout.
// Cluster sizes climb a ladder of node counts (1, 2, 3, 4, 6, 8, 12, ...: powers of two and 1.5 times them),
// starting where the GPUs' peak FLOP/s could reach the goal's model FLOP/s at all; at each size the layout
// search (plan_search.hpp) runs with the goal's step time as a bound, so a size no layout can reach costs only
// its rule checks and lower bounds. The first size where a simulated layout meets the goal is the answer, with
// its search's ranking.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input/scenario_inputs.hpp"
#include "sweep/plan_search.hpp"

namespace k3::sweep {

struct TrainingGoal {
  double tokens = 0;  // to train
  double days = 0;    // of wall-clock training, at the simulated step time
};

// One rung of the ladder.
struct ClusterSizeTried {
  std::int64_t gpus = 0;
  std::optional<double> best_step_time_s;  // the fastest feasible layout simulated (analytical network)
  std::size_t candidates = 0;
  std::size_t simulated = 0;
  double wall_s = 0;
  bool meets = false;  // on ideal throughput
  // Where the scenario has a reliability: block and the size meets the goal on ideal throughput: the P50 of the
  // whole run's goodput (sim/reliability/goodput.hpp) at the best layout's step, and whether it meets the goal.
  std::optional<double> goodput_tokens_per_s;
  std::optional<double> effective_training_time;
  bool meets_goodput = false;
};

struct ClusterPlanResult {
  TrainingGoal goal;
  double required_tokens_per_s = 0;
  double goal_step_time_s = 0;  // the scenario's tokens per step at that rate
  int gpus_per_node = 0;
  std::int64_t floor_gpus = 0;  // below this many GPUs even their peak FLOP/s cannot meet the goal
  std::vector<ClusterSizeTried> tried;
  // The smallest size that meets the goal: on goodput where the scenario has a reliability: block, on ideal
  // throughput otherwise; none when the ladder ran out.
  std::optional<PlanResult> chosen;
  std::optional<std::int64_t> ideal_gpus;  // the smallest size that meets it on ideal throughput
  bool sized_on_goodput = false;
};

// Replications of each goodput simulation the ladder runs (P50 against the goal).
inline constexpr int kPlanGoodputReplications = 32;

// Resolves the base scenario on `gpus` GPUs (its cluster resized; 0: its own size); InputError when it cannot be.
using ResolveOnGpus = std::function<input::ScenarioInputs(std::int64_t gpus)>;

// The base's text, source and --set overrides (the cluster size is left to `resolve`); `max_gpus` ends the
// ladder. Throws InputError for a goal that is not positive.
ClusterPlanResult plan_cluster_size(const std::string& yaml_text, const std::string& source,
                                    const std::vector<input::Override>& sets, const TrainingGoal& goal,
                                    const PlanOptions& options, const ResolveOnGpus& resolve, std::int64_t max_gpus);

// The node counts of the ladder from `first_nodes` up to `last_nodes`, ascending.
std::vector<std::int64_t> cluster_ladder(std::int64_t first_nodes, std::int64_t last_nodes);

nlohmann::json cluster_plan_to_json(const ClusterPlanResult& r, PlanObjective objective);

}  // namespace k3::sweep
