#pragma once
// One training step of a scenario, end to end:
//   1. the parallel plan maps ranks to GPUs and checks the layout against model and cluster;
//   2. every distinct pipeline pass (F, B, W and DualPipe's overlapped F&B of each stage) is built as a
//      PassProgram for the GPUs of one EP (or TP) group and replayed on the event engine with the network
//      model, so all-to-alls and all-reduces contend for links and the most loaded GPU sets the pace;
//   3. the step graph (every pass of every pipeline rank at its replayed time, the sends between stages, the
//      data-parallel gradient and parameter buckets, the optimizer) runs in one engine run on the network.
// EP groups of one stage are identical (same sampled routing), so one is simulated per stage.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/units.hpp"
#include "sim/cost/calibration_profile.hpp"
#include "model/model_spec.hpp"
#include "sim/exec/pass_batch.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/exec/step_graph.hpp"

#include <nlohmann/json.hpp>
#include "sim/train/step_spec.hpp"
#include "sim/workload/moe_sampling.hpp"
#include "sim/train/step_result.hpp"
#include "sim/train/step_reuse.hpp"
#include "topologies/topology.hpp"

namespace k3::train {

// The step graph as it ran, for `k3sim run --export-graph`.
struct StepGraphExport {
  const exec::StepGraph& graph;
  core::SimTime makespan;
  // Per distinct pass (a pass node's `program`): its kernels on the first GPU of its group (exec::program_to_json).
  const nlohmann::json& programs;
};

struct StepOptions {
  bool trace = true;            // keep the pipeline timeline
  int max_trace_ranks = 16;     // pipeline ranks kept in the trace
  bool op_trace = false;        // also simulate one pass of each kind op by op (StepResult::op_trace)
  std::string version;          // k3sim version string for the result
  int threads = 0;              // workers for the independent pass simulations; 0: one per hardware thread
  bool per_layer = true;        // simulate each decoder-layer kind alone for StepResult::layers
  StepReuse* reuse = nullptr;   // shared by the runs of a band; null for a plain run
  // A layout that does not fit in HBM returns before its passes are simulated: fits_in_memory false, the
  // memory of its most loaded rank, no times (step_time_s 0). What a search needs of it, at a fraction of
  // the cost: most of the layouts a K3 plan simulated were over memory once their ranks were built.
  bool stop_when_over_memory = false;
  // The symmetry shortcuts off: each pipeline rank's passes simulated apart (no stage classes shared between
  // ranks) and every GPU of a block on its own thread. For the test that the shortcuts change no step time.
  bool simulate_every_rank = false;
  // Called with the step graph once it has run (`k3sim run --export-graph`).
  std::function<void(const StepGraphExport&)> on_graph;
};

// Throws core::InputError when the layout does not fit the model or the cluster.
StepResult simulate_step(const StepSpec& scenario, const model::ModelSpec& spec, const topo::Topology& topology,
                         const cost::CalibrationProfile* profile, const StepOptions& options = {});

// simulate_step in two calls, so that a caller simulating several steps at once can run all their passes on
// its threads together (exec::PassBatch; plan's flow recheck): the constructor builds the step up to its
// passes (layout, expert load, memory, network scope) and throws as simulate_step does; passes() lists them,
// to try on any threads; finish() simulates what is left and the rest of the step. The scenario, model,
// topology and profile must outlive it.
class PreparedStep {
 public:
  PreparedStep(const StepSpec& scenario, const model::ModelSpec& spec, const topo::Topology& topology,
               const cost::CalibrationProfile* profile, const StepOptions& options = {});
  ~PreparedStep();
  PreparedStep(PreparedStep&&) noexcept;
  PreparedStep& operator=(PreparedStep&&) noexcept;

  // Null where there is nothing to simulate: a layout over memory, with StepOptions::stop_when_over_memory.
  exec::PassBatch* passes();
  // Once; the passes not tried yet run on StepOptions::threads.
  StepResult finish();

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// A lower bound of simulate_step's step time, from the pipeline schedule run on the compute of each pass alone
// (no network, routed load balanced) and the shortest optimizer step of a pipeline rank: milliseconds where the step takes seconds to simulate, so that a
// search can skip a layout that cannot beat the ones it already has. Throws as simulate_step does for a
// layout that does not fit; does not check the scenario's assumption overrides.
core::Seconds step_time_lower_bound(const StepSpec& scenario, const model::ModelSpec& spec,
                                    const topo::Topology& topology, const cost::CalibrationProfile* profile);

}  // namespace k3::train
