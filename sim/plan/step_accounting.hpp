#pragma once
// Turns the simulated passes and the pipeline timeline into a StepResult: step time with the data-parallel
// reduction and the optimizer, the breakdown on the critical pipeline rank, MFU, memory and link use.
#include <map>
#include <tuple>

#include "model/model_spec.hpp"
#include "model/ops.hpp"
#include "sim/plan/moe_sampling.hpp"
#include "sim/plan/pass_runner.hpp"
#include "sim/plan/pipeline_schedule.hpp"
#include "sim/plan/rank_mapping.hpp"
#include "sim/plan/scenario.hpp"
#include "sim/plan/stage_split.hpp"
#include "sim/plan/step_result.hpp"
#include "sim/plan/step_simulator.hpp"

namespace k3::plan {

// One simulated pass, reduced to what the step needs.
struct PassRecord {
  core::SimTime duration;
  std::map<std::string, double> compute_s;  // on the GPU that finished last, by op category
  std::map<std::string, double> exposed_s;  // the rest of the pass, by the collective it waited for
  LinkClassBytes link_bytes;                // what the pass moved, by link class (one group)
};
// Keyed by (stage, second stage or -1, PassPart).
using PassMemo = std::map<std::tuple<int, int, int>, PassRecord>;

PassRecord summarize_pass(const PassProgram& program, const PassOutcome& outcome, const LinkClassBytes& bytes);

struct AccountingInputs {
  const Scenario& scenario;
  const model::ModelSpec& spec;
  const topo::Topology& topology;
  const RankMapping& map;
  const PipelineSchedule& schedule;
  const PipelineTimeline& timeline;
  const std::vector<model::OpBlock>& blocks;
  const std::vector<StageBlocks>& stages;
  const PassMemo& passes;
  const OpCostModel& cost;
  const PassRunner& runner;
  const model::MicroBatch& microbatch;
  int microbatches;
  const MoeSample& moe;
  double events;
  const StepOptions& options;
};

StepResult account_step(const AccountingInputs& in);

}  // namespace k3::plan
