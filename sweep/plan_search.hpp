#pragma once
// `k3sim plan`'s search: the best parallel layouts of a base scenario on a fixed GPU count. Every candidate
// of the layout space (layout_space.hpp) is checked against the layout rules and a closed-form memory bound
// first (layout_rules.hpp) and counted under the rule it breaks; the survivors run through the same step
// simulation as `k3sim run` with the analytical network (no band), on all cores; the feasible ones are
// ranked by the objective, the Pareto front over (cost or GPUs, step time) is marked, and the top K are
// simulated again on the flow network, saying whether that changes their order, with an uncertainty band
// (train/step_band.hpp) saying in how many of its paired samples the winner and the order hold.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/progress.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_band.hpp"
#include "sweep/grid.hpp"
#include "sweep/layout_rules.hpp"
#include "sweep/sweep_runner.hpp"

namespace k3::sweep {

enum class PlanObjective { time, cost };

// Runs `n` independent jobs and returns what each returned, in index order. The search hands its rule checks,
// its rounds of simulations and its top-K re-runs to one of these: spread_on_threads here, or sweep_mpi.hpp's
// over MPI ranks (every rank calls it with the same jobs and gets every result, so every rank makes the same
// decisions). Results are text so that they can cross processes. A process gets its share of the jobs as one
// batch (their indices, and the threads to run them on), so that a batch can interleave its jobs' parts.
using BatchJob = std::function<std::vector<std::string>(const std::vector<std::size_t>& indices, int threads)>;
using SpreadWork = std::function<std::vector<std::string>(std::size_t n, const BatchJob& batch)>;
SpreadWork spread_on_threads(int threads);
// The batch that runs `job` for each of its indices on its threads.
BatchJob each_index(std::function<std::string(std::size_t)> job);

struct PlanOptions {
  std::vector<input::Override> fixes;  // --fix: keys held at one value (and out of the search)
  std::vector<GridAxis> axes;          // --grid: searched keys besides, or instead of, TP, PP and EP
  PlanObjective objective = PlanObjective::time;
  int top_k = 3;                       // re-run on the flow network
  int band_samples = 16;               // ... each with an uncertainty band of this many paired samples (0: none)
  // The best this many (or top_k, if more) are exact: a candidate whose step-time lower bound shows it
  // cannot enter them is not simulated (counted under kBoundRule). `exhaustive` simulates every survivor.
  std::size_t exact_rows = 10;
  bool exhaustive = false;
  // The goal of a cluster-size search: candidates whose lower bound exceeds it are not simulated
  // (counted under kGoalRule).
  std::optional<double> goal_step_time_s;
  int threads = 1;                     // >= 1
  SpreadWork spread;                   // empty: spread_on_threads(threads)
  std::FILE* progress = nullptr;       // progress of the simulations (core::Progress), or none
  core::ProgressMode progress_mode = core::ProgressMode::lines;
};

// The base scenario as `k3sim run` reads it: text, the name errors cite, and its --set overrides (the
// GPU count among them, as cluster.nodes), resolved once into model, topology and profile.
struct PlanBase {
  std::string yaml_text;
  std::string source;
  std::vector<input::Override> sets;
  const input::ScenarioInputs& inputs;
};

struct PlanCandidate {
  GridPoint settings;              // the searched keys' values, as --set overrides of the base
  bool feasible = false;           // simulated and fits in HBM
  std::string reason;              // why not, when not
  double step_time_s = 0;          // analytical network
  double tokens_per_s = 0;
  double mfu = 0;
  double memory_bytes = 0;         // most loaded GPU
  double hbm_bytes = 0;
  std::optional<double> cost_per_trillion_tokens_usd;  // when the scenario has price_per_gpu_hour
  std::map<std::string, double> breakdown_s;           // step time by share (train::StepResult::breakdown)
  bool pareto = false;
  std::optional<double> flow_step_time_s;  // top K only
  std::optional<train::Quantiles> band_step_time_s;  // top K: P10/P50/P90 of the flow step over the band
  double lower_bound_s = 0;                // train::step_time_lower_bound; 0 when it could not be built
  std::size_t grid_index = 0;              // in the expanded space, for ties
  double headroom_bytes() const { return hbm_bytes - memory_bytes; }
};

// The key under which candidates skipped by their lower bound are counted.
inline constexpr const char* kBoundRule = "bound";
// ... and those whose lower bound misses PlanOptions::goal_step_time_s.
inline constexpr const char* kGoalRule = "goal";

struct RuleCount {
  std::size_t candidates = 0;
  std::string example;  // the refusal of the first candidate it pruned
};

struct PlanResult {
  std::int64_t gpus = 0;
  std::vector<GridAxis> axes;                  // the space searched
  std::size_t candidates = 0;                  // points of the space
  std::map<std::string, RuleCount> pruned;     // by rule (scenario key, "memory" or kBoundRule), not simulated
  std::size_t simulated = 0;
  std::size_t exact_rows = 0;                  // the ranking's first rows no unsimulated candidate can enter
  std::vector<PlanCandidate> ranked;           // simulated: feasible by objective, then the rest
  bool flow_changes_ranking = false;           // among the top K
  // The band of the top K: its samples are paired (every candidate sees the same draw of each registered number
  // in sample s), so each sample ranks them; how many of those rankings keep the flow network's winner first,
  // and how many keep its whole order.
  int band_samples = 0;
  int band_winner_holds = 0;
  int band_order_holds = 0;
  double search_wall_s = 0;                    // rules + analytical simulations
  double flow_wall_s = 0;                      // the top K's flow re-runs and bands
  // Passes the flow re-runs replayed flow by flow, and those they found already replayed by another candidate
  // (exec::ReplayMemo; under mpirun, this process's).
  std::size_t flow_passes_replayed = 0;
  std::size_t flow_passes_reused = 0;
};

// The point parsed as `k3sim run --set` would (base.sets, then `extra`, then the point) and checked against the
// layout rules on base.inputs' model and cluster: the refusal, or nothing when it may be simulated. A point that
// does not parse is refused under the key its InputError names. `on_survivor` (optional) gets the parsed step of
// a point that passes.
std::optional<RuleFailure> check_point_rules(const PlanBase& base, const std::vector<input::Override>& extra,
                                             const GridPoint& point,
                                             const std::function<void(const input::Scenario&)>& on_survivor);
// check_point_rules for every point, on `threads` threads.
std::vector<std::optional<RuleFailure>> check_points_rules(const PlanBase& base,
                                                           const std::vector<input::Override>& extra,
                                                           const std::vector<GridPoint>& points, int threads);

// The ranking: feasible first, by the objective; of equal ones the one that leaves more HBM free (issue 47: an equally
// fast layout with 0.65 GiB left was recommended over one with 16.7 GiB), then grid order, so it is deterministic.
void rank_candidates(std::vector<PlanCandidate>& candidates, PlanObjective objective);

// Whether a key changes what is resolved once per search (model, cluster, profile), so that the points of a
// grid over it cannot be checked on one resolved model and cluster.
bool changes_resolved_inputs(const std::string& key);

// Throws InputError for a bad base or option; a candidate that fails is counted or kept with its reason.
PlanResult plan_layouts(const PlanBase& base, const PlanOptions& options);

// What the runner-up loses on against the winner: the step-time share that grows most, e.g.
// "+0.412 s pipeline bubble"; empty when there is no runner-up.
std::string runner_up_loses_on(const PlanResult& r);

nlohmann::json plan_to_json(const PlanResult& r, PlanObjective objective);
// One row per simulated candidate, in rank order: the searched keys, then the figures (units in the headers).
std::string plan_to_csv(const PlanResult& r);

}  // namespace k3::sweep
