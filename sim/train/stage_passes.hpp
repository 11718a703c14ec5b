#pragma once
// The distinct passes of a step. Stages holding the same blocks (the same multiset of block kinds: the order of a
// stage's layers does not change how long its pass takes) run the same passes, so each class of stages is
// simulated once, on its representative: the lowest pipeline rank that runs it, with the stages and part it runs
// there first (parallel::ask_each_pass walks the ranks in order), so the choice depends neither on the order of the
// calls nor on the thread count. The MoE samples follow the position inside the stage, so stages of the same
// composition carry the same load.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/exec/pass_batch.hpp"
#include "sim/exec/pipeline_graph.hpp"
#include "sim/train/op_trace.hpp"
#include "sim/train/pass_context.hpp"
#include "sim/train/step_accounting.hpp"
#include "sim/train/step_plan.hpp"

namespace k3::train {

class StagePasses {
 public:
  // (the rank's speed class, stage class, second stage class or -1, PassPart): ranks whose blocks run at other
  // speeds (parallel::SimulatedBlocks) simulate their passes apart.
  using Key = std::tuple<int, int, int, int>;
  struct Representative {
    int rank = 0;
    int f_stage = 0;
    int b_stage = -1;  // DualPipe's overlapped F&B: the backward half's stage
    workload::PassPart part = workload::PassPart::forward;
  };

  // `plan` and `contexts` must outlive it.
  StagePasses(const StepPlan& plan, const PassContexts& contexts);

  Key class_key(int rank, int f_stage, int b_stage, workload::PassPart part) const;
  // What the export calls a class's pass ("stage class 0 forward").
  static std::string name(const Key& key);
  // The pass program a scheduled pass is timed as: B-input passes as the whole backward (their cost is the
  // backward less the weight part, parallel::pass_duration).
  static workload::PassPart part_costed_as(parallel::PassKind kind);

  const std::map<Key, Representative>& representatives() const { return representatives_; }
  // The program of `rank`'s pass of `f_stage` (with `b_stage`'s backward after it for an overlapped F&B).
  workload::PassProgram program_of(int rank, int f_stage, int b_stage, workload::PassPart part) const;
  workload::PassProgram program_of(const Representative& r) const { return program_of(r.rank, r.f_stage, r.b_stage, r.part); }
  // One scheduled pass's program as the timed run simulated it, with its forward half's thread count.
  TracedProgram traced_program(int rank, const parallel::Pass& pass) const;
  // The schedule's pass durations from `of_class(class key)`, with free transfers between stages.
  parallel::PassCosts costs(const std::function<core::SimTime(const Key&)>& of_class) const;

  // Each class's pass as simulated; then `timed` finds a scheduled pass's record by its rank and stages.
  void record(const Key& key, PassRecord pass) { by_class_.insert_or_assign(key, std::move(pass)); }
  const PassRecord& timed(int rank, int f_stage, int b_stage, workload::PassPart part);
  // The schedule's pass durations from the records (every class recorded).
  parallel::PassCosts recorded_durations();
  // The records of the passes `timed` was asked for, by (speed class, stage, second stage or -1, PassPart).
  const PassMemo& memo() const { return by_stage_; }

  // Names each pass node of the graph by its class (before the DP work splits nodes, so that the parts keep it).
  void name_programs(exec::PipelineGraph& pipeline) const;
  // The kernels of each simulated class, on the first GPU of its group: `batch` holds the representatives'
  // programs in representatives()' order.
  nlohmann::json programs_json(const exec::PassBatch& batch) const;

 private:
  const StepPlan& plan_;
  const PassContexts& contexts_;
  std::vector<int> stage_class_;  // [stage]: the lowest stage of its class
  std::map<Key, Representative> representatives_;
  std::map<Key, PassRecord> by_class_;
  PassMemo by_stage_;
};

}  // namespace k3::train
