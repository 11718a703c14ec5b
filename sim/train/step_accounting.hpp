#pragma once
// Turns the step graph's run (passes, sends, data-parallel reduction and optimizer on one engine) into a
// StepResult: step time, the breakdown on the critical pipeline rank, MFU, memory and link use.
#include <map>
#include <tuple>

#include "core/provenance.hpp"
#include "model/model_spec.hpp"
#include "model/ops.hpp"
#include "sim/workload/moe_sampling.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/exec/pipeline_graph.hpp"
#include "sim/parallel/pipeline_schedule.hpp"
#include "sim/parallel/rank_mapping.hpp"
#include "sim/train/step_spec.hpp"
#include "sim/parallel/stage_split.hpp"
#include "sim/train/step_result.hpp"
#include "sim/train/step_simulator.hpp"
#include "sim/train/dp_phase.hpp"
#include "sim/train/step_plan.hpp"

namespace k3::train {

// One simulated pass, reduced to what the step needs.
struct PassRecord {
  core::SimTime duration;
  std::map<std::string, double> compute_s;  // on the GPU that finished last, by op category
  std::map<std::string, double> measured_s;  // of compute_s, priced from measured kernel latencies
  std::map<std::string, double> exposed_s;  // the rest of the pass, by the collective it waited for, or kHostWait
  exec::LinkClassBytes link_bytes;                // what the pass moved, by link class (one group)
};
// Keyed by (the rank's speed class, stage, second stage or -1, PassPart).
using PassMemo = std::map<std::tuple<int, int, int, int>, PassRecord>;

PassRecord summarize_pass(const workload::PassProgram& program, const exec::PassOutcome& outcome, const exec::LinkClassBytes& bytes);

struct AccountingInputs {
  const StepSpec& scenario;
  const model::ModelSpec& spec;
  const topo::Topology& topology;
  const StepPlan& plan;  // rank mapping, schedule, one micro-batch's ops, stages
  const parallel::PipelineTimeline& timeline;
  const PassMemo& passes;
  const cost::OpCostModel& cost;
  const exec::PassRunner& runner;
  const workload::MoeSample& moe;
  double events;
  const StepOptions& options;
  core::Provenance& prov;  // the numbers the step read; the DP work registers its own
  // The step graph as it ran (empty before it is built and run): passes, sends and DP work, and their times.
  const exec::PipelineGraph& pipeline;
  const exec::GraphTimes& times;
  const DpWork& dp;
};

// Memory of the most loaded pipeline rank (what it holds does not depend on the passes' times).
std::vector<MemoryShare> peak_rank_memory(const AccountingInputs& in);
// What a step is before it is timed: names, layout, memory and whether it fits; no times.
StepResult describe_step(const AccountingInputs& in);
// `described` (describe_step of the same step) with the times: step time, breakdown on the critical rank,
// MFU, link use.
StepResult account_step(const AccountingInputs& in, StepResult described);

}  // namespace k3::train
