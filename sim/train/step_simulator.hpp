#pragma once
// One training step of a scenario, end to end:
//   1. the parallel plan maps ranks to GPUs and checks the layout against model and cluster;
//   2. every distinct pipeline pass (F, B, W and DualPipe's overlapped F&B of each stage) is built as a
//      PassProgram for the GPUs of one EP (or TP) group and replayed on the event engine with the network
//      model, so all-to-alls and all-reduces contend for links and the most loaded GPU sets the pace;
//   3. the pipeline schedule runs on those pass times with point-to-point transfers between stages;
//   4. data-parallel gradient reduction, the optimizer step and the parameter all-gather follow, each
//      overlapped with the pipeline's last backward / first forward pass where frameworks do so.
// EP groups of one stage are identical (same sampled routing), so one is simulated per stage.
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "sim/cost/calibration_profile.hpp"
#include "model/model_spec.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/train/step_spec.hpp"
#include "sim/workload/moe_sampling.hpp"
#include "sim/train/step_result.hpp"
#include "topologies/topology.hpp"

namespace k3::train {

// What the runs of one uncertainty band share (step_band.hpp): the sampled expert load and the collectives
// simulated alone. The memo's keys point into the sampled traffic matrices, so the two are shared together,
// and only by runs whose overrides leave the expert load as it is (no registered number changes it).
struct StepReuse {
  std::mutex mutex;
  std::optional<workload::MoeSample> moe;
  // The symmetry check of the first run (it reads the routing sample and the fabric, which the band's runs
  // share; the link figures they move change its two times alike).
  std::optional<SymmetryCheckResult> symmetry;
  std::shared_ptr<exec::SoloCollectiveMemo> collectives = std::make_shared<exec::SoloCollectiveMemo>();
};

struct StepOptions {
  bool trace = true;            // keep the pipeline timeline
  int max_trace_ranks = 16;     // pipeline ranks kept in the trace
  bool op_trace = false;        // also simulate one pass of each kind op by op (StepResult::op_trace)
  std::string version;          // k3sim version string for the result
  int threads = 0;              // workers for the independent pass simulations; 0: one per hardware thread
  bool per_layer = true;        // simulate each decoder-layer kind alone for StepResult::layers
  StepReuse* reuse = nullptr;   // shared by the runs of a band; null for a plain run
};

// Throws core::InputError when the layout does not fit the model or the cluster.
StepResult simulate_step(const StepSpec& scenario, const model::ModelSpec& spec, const topo::Topology& topology,
                         const cost::CalibrationProfile* profile, const StepOptions& options = {});

}  // namespace k3::train
