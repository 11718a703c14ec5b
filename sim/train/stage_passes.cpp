#include "sim/train/stage_passes.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "sim/exec/program_graph.hpp"

namespace k3::train {

namespace {

using core::SimTime;

// Pass costs from `per_pass(rank, stage, second stage or -1, part)` (DualPipe's overlapped F&B as the two stages
// with part backward), with free transfers between stages.
template <class PerPass>
parallel::PassCosts costs_by_stage(const parallel::PipelineSchedule& s, const PerPass& per_pass) {
  parallel::PassCosts c;
  c.forward = [&s, per_pass](int r, int ch) { return per_pass(r, s.stage_of(r, ch), -1, workload::PassPart::forward); };
  c.backward = [&s, per_pass](int r, int ch) { return per_pass(r, s.stage_of(r, ch), -1, workload::PassPart::backward); };
  c.weight = [&s, per_pass](int r, int ch) { return per_pass(r, s.stage_of(r, ch), -1, workload::PassPart::weight); };
  c.forward_backward = [&s, per_pass](int r, int f, int b) {
    return per_pass(r, s.stage_of(r, f), s.stage_of(r, b), workload::PassPart::backward);
  };
  c.p2p = [](int, int) { return SimTime::zero(); };
  return c;
}

}  // namespace

StagePasses::StagePasses(const StepPlan& plan, const PassContexts& contexts) : plan_(plan), contexts_(contexts) {
  std::map<std::vector<std::string>, int> first;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    std::vector<std::string> kinds;
    for (int b : plan.stages[s].blocks) kinds.push_back(plan.blocks[static_cast<std::size_t>(b)].kind);
    std::sort(kinds.begin(), kinds.end());
    stage_class_.push_back(first.emplace(kinds, static_cast<int>(s)).first->second);
  }
  const auto want = [this](int rank, int f_stage, int b_stage, workload::PassPart part) {
    representatives_.try_emplace(class_key(rank, f_stage, b_stage, part), Representative{rank, f_stage, b_stage, part});
    return SimTime::zero();
  };
  parallel::ask_each_pass(plan.schedule, costs_by_stage(plan.schedule, want));
}

StagePasses::Key StagePasses::class_key(int rank, int f_stage, int b_stage, workload::PassPart part) const {
  return {plan_.simulated.speed_class[static_cast<std::size_t>(rank)], stage_class_[static_cast<std::size_t>(f_stage)],
          b_stage < 0 ? -1 : stage_class_[static_cast<std::size_t>(b_stage)], static_cast<int>(part)};
}

std::string StagePasses::name(const Key& key) {
  const auto& [speed_class, f_class, b_class, part] = key;
  // Speed class 0 (every GPU at the tables' speed) is left unnamed: most steps have no other.
  const std::string speeds = speed_class == 0 ? "" : fmt::format(" at speed class {}", speed_class);
  if (b_class >= 0) return fmt::format("stage class {} forward + stage class {} backward{}", f_class, b_class, speeds);
  const char* parts[] = {"forward", "backward", "backward input", "weight"};
  return fmt::format("stage class {} {}{}", f_class, parts[part], speeds);
}

workload::PassPart StagePasses::part_costed_as(parallel::PassKind kind) {
  return kind == parallel::PassKind::forward  ? workload::PassPart::forward
         : kind == parallel::PassKind::weight ? workload::PassPart::weight
                                              : workload::PassPart::backward;
}

workload::PassProgram StagePasses::program_of(int rank, int f_stage, int b_stage, workload::PassPart part) const {
  workload::PassProgram p;
  const auto ctx = contexts_.for_rank(rank, b_stage >= 0);
  const auto& stages = plan_.stages;
  if (b_stage < 0) {
    workload::append_stage_pass(p, ctx, stages[static_cast<std::size_t>(f_stage)], part);
  } else {
    workload::append_stage_pass(p, ctx, stages[static_cast<std::size_t>(f_stage)], workload::PassPart::forward);
    workload::append_stage_pass(p, ctx, stages[static_cast<std::size_t>(b_stage)], workload::PassPart::backward);
  }
  return p;
}

TracedProgram StagePasses::traced_program(int rank, const parallel::Pass& p) const {
  const int f_stage = plan_.schedule.stage_of(rank, p.work.chunk);
  if (p.kind == parallel::PassKind::forward_backward) {
    workload::PassProgram program;
    const auto ctx = contexts_.for_rank(rank, true);
    workload::append_stage_pass(program, ctx, plan_.stages[static_cast<std::size_t>(f_stage)], workload::PassPart::forward);
    const int forward_threads = static_cast<int>(program.threads.size());
    const int b_stage = plan_.schedule.stage_of(rank, p.backward.chunk);
    workload::append_stage_pass(program, ctx, plan_.stages[static_cast<std::size_t>(b_stage)], workload::PassPart::backward);
    return {std::move(program), forward_threads};
  }
  auto program = program_of(rank, f_stage, -1, part_costed_as(p.kind));
  const int threads = static_cast<int>(program.threads.size());
  return {std::move(program), threads};
}

parallel::PassCosts StagePasses::costs(const std::function<core::SimTime(const Key&)>& of_class) const {
  return costs_by_stage(plan_.schedule, [this, of_class](int rank, int f_stage, int b_stage, workload::PassPart part) {
    return of_class(class_key(rank, f_stage, b_stage, part));
  });
}

const PassRecord& StagePasses::timed(int rank, int f_stage, int b_stage, workload::PassPart part) {
  const PassMemo::key_type key{plan_.simulated.speed_class[static_cast<std::size_t>(rank)], f_stage, b_stage,
                               static_cast<int>(part)};
  if (auto it = by_stage_.find(key); it != by_stage_.end()) return it->second;
  const auto it = by_class_.find(class_key(rank, f_stage, b_stage, part));
  K3SIM_ASSERT(it != by_class_.end(), "a scheduled pass whose class was not simulated");
  return by_stage_.emplace(key, it->second).first->second;
}

parallel::PassCosts StagePasses::recorded_durations() {
  return costs_by_stage(plan_.schedule, [this](int rank, int f_stage, int b_stage, workload::PassPart part) {
    return timed(rank, f_stage, b_stage, part).duration;
  });
}

void StagePasses::name_programs(exec::PipelineGraph& pipeline) const {
  const auto& s = plan_.schedule;
  for (int r = 0; r < s.ranks; ++r) {
    for (const auto& sp : pipeline.passes[static_cast<std::size_t>(r)]) {
      const auto& p = sp.pass;
      const int f_stage = s.stage_of(r, p.work.chunk);
      const Key key = p.kind == parallel::PassKind::forward_backward
                          ? class_key(r, f_stage, s.stage_of(r, p.backward.chunk), workload::PassPart::backward)
                          : class_key(r, f_stage, -1, part_costed_as(p.kind));
      pipeline.graph.nodes[sp.node].program = name(key);
    }
  }
}

nlohmann::json StagePasses::programs_json(const exec::PassBatch& batch) const {
  nlohmann::json out = nlohmann::json::object();
  std::size_t i = 0;
  for (const auto& [key, rep] : representatives_) out[name(key)] = exec::program_to_json(batch.program(i++), 0);
  return out;
}

}  // namespace k3::train
