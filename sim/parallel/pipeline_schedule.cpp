#include "sim/parallel/pipeline_schedule.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "sim/parallel/schedule_registry.hpp"

namespace k3::parallel {

namespace {
using core::InputError;
using core::SimTime;
}  // namespace

int PipelineSchedule::stage_of(int rank, int chunk) const {
  switch (layout) {
    case ChunkLayout::bidirectional: return chunk == 0 ? rank : ranks - 1 - rank;
    case ChunkLayout::v_shape: return chunk == 0 ? rank : 2 * ranks - 1 - rank;
    case ChunkLayout::interleaved: break;
  }
  return chunk * ranks + rank;
}

std::vector<int> PipelineSchedule::stages_held(int rank) const {
  std::vector<int> out;
  for (int c = 0; c < chunks_per_rank; ++c) out.push_back(stage_of(rank, c));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int PipelineSchedule::stream_of(int /*rank*/, int chunk) const {
  return layout == ChunkLayout::bidirectional ? chunk : 0;
}

std::pair<int, int> PipelineSchedule::holder_of(int stream, int stage) const {
  switch (layout) {
    case ChunkLayout::bidirectional: return stream == 0 ? std::pair{stage, 0} : std::pair{ranks - 1 - stage, 1};
    case ChunkLayout::v_shape: return stage < ranks ? std::pair{stage, 0} : std::pair{2 * ranks - 1 - stage, 1};
    case ChunkLayout::interleaved: break;
  }
  return {stage % ranks, stage / ranks};
}

PipelineSchedule make_schedule(const PipelineScheduleEntry& entry, int pp, int vpp, int microbatches) {
  if (pp < 1 || vpp < 1 || microbatches < 1) {
    throw InputError({"", "parallel.pp", 0}, "PP, virtual stages and micro-batches must be >= 1");
  }
  return entry.make(pp, vpp, microbatches);
}

namespace {

// Completion times per (stream, stage, micro-batch), flat: the executor looks one up for every pass, and
// large pipelines run hundreds of thousands of passes.
class DoneTimes {
 public:
  DoneTimes(int streams, int stages, int microbatches)
      : stages_(stages), microbatches_(microbatches),
        at_(static_cast<std::size_t>(streams) * static_cast<std::size_t>(stages) * static_cast<std::size_t>(microbatches)) {}
  std::optional<SimTime> find(int stream, int stage, int microbatch) const { return at_[index(stream, stage, microbatch)]; }
  void set(int stream, int stage, int microbatch, SimTime t) { at_[index(stream, stage, microbatch)] = t; }

 private:
  std::size_t index(int stream, int stage, int microbatch) const {
    K3SIM_ASSERT(stage >= 0 && stage < stages_ && microbatch >= 0 && microbatch < microbatches_,
                 "a pass outside its schedule's stages or micro-batches");
    return (static_cast<std::size_t>(stream) * static_cast<std::size_t>(stages_) + static_cast<std::size_t>(stage)) *
               static_cast<std::size_t>(microbatches_) +
           static_cast<std::size_t>(microbatch);
  }
  int stages_;
  int microbatches_;
  std::vector<std::optional<SimTime>> at_;
};

// What `pass` costs on rank `r`, asked of `costs` in a fixed order (a backward-input pass: backward, then
// weight), which ask_each_pass and execute_pipeline share.
SimTime pass_duration(const PassCosts& costs, int r, const Pass& pass) {
  switch (pass.kind) {
    case PassKind::forward:
      return costs.forward(r, pass.work.chunk);
    case PassKind::backward:
      return costs.backward(r, pass.work.chunk);
    case PassKind::backward_input: {
      const SimTime whole = costs.backward(r, pass.work.chunk);
      return whole - costs.weight(r, pass.work.chunk);
    }
    case PassKind::weight:
      return costs.weight(r, pass.work.chunk);
    case PassKind::forward_backward:
      return costs.forward_backward(r, pass.work.chunk, pass.backward.chunk);
  }
  throw core::InternalError("unknown pipeline pass kind");
}

}  // namespace

void ask_each_pass(const PipelineSchedule& s, const PassCosts& costs) {
  for (int r = 0; r < s.ranks; ++r) {
    for (const Pass& pass : s.passes[static_cast<std::size_t>(r)]) (void)pass_duration(costs, r, pass);
  }
}

PipelineTimeline execute_pipeline(const PipelineSchedule& s, const PassCosts& costs, bool with_passes) {
  int microbatches = 1;
  for (const auto& list : s.passes) {
    for (const auto& p : list) microbatches = std::max({microbatches, p.work.microbatch + 1, p.backward.microbatch + 1});
  }
  DoneTimes forward_done(s.streams, s.stages(), microbatches);
  DoneTimes backward_done(s.streams, s.stages(), microbatches);
  const int last_stage = s.stages() - 1;

  PipelineTimeline t;
  t.per_rank.resize(s.passes.size());
  for (std::size_t r = 0; with_passes && r < s.passes.size(); ++r) t.per_rank[r].reserve(s.passes[r].size());
  t.busy.assign(s.passes.size(), SimTime::zero());
  t.sending.assign(s.passes.size(), SimTime::zero());
  std::vector<std::size_t> next(s.passes.size(), 0);
  std::vector<SimTime> free_at(s.passes.size(), SimTime::zero());

  // When the inputs of F (or B) of `w` on `rank` are there, or nullopt if not yet computed.
  auto input_ready = [&](int rank, ChunkWork w, bool is_forward) -> std::optional<SimTime> {
    const int stage = s.stage_of(rank, w.chunk);
    const int stream = s.stream_of(rank, w.chunk);
    if (is_forward && stage == 0) return SimTime::zero();
    if (!is_forward && stage == last_stage) return forward_done.find(stream, stage, w.microbatch);
    const int from_stage = is_forward ? stage - 1 : stage + 1;
    const auto done = (is_forward ? forward_done : backward_done).find(stream, from_stage, w.microbatch);
    if (!done) return std::nullopt;
    const int from_rank = s.holder_of(stream, from_stage).first;
    return from_rank == rank ? *done : *done + costs.p2p(from_rank, rank);
  };

  // How long `rank` is held by sending the output of `w` (forward: to the next stage; backward: to the
  // previous one); zero for outputs that stay on the rank or leave the pipeline.
  auto send_time = [&](int rank, ChunkWork w, bool is_forward) {
    const int stage = s.stage_of(rank, w.chunk);
    const int to_stage = is_forward ? stage + 1 : stage - 1;
    if (to_stage < 0 || to_stage > last_stage) return SimTime::zero();
    const int to_rank = s.holder_of(s.stream_of(rank, w.chunk), to_stage).first;
    return to_rank == rank ? SimTime::zero() : costs.p2p(rank, to_rank);
  };

  std::size_t remaining = 0;
  for (const auto& list : s.passes) remaining += list.size();
  while (remaining > 0) {
    bool progressed = false;
    for (int r = 0; r < s.ranks; ++r) {
      const auto ri = static_cast<std::size_t>(r);
      while (next[ri] < s.passes[ri].size()) {
        const Pass& pass = s.passes[ri][next[ri]];
        std::optional<SimTime> ready = SimTime::zero();
        switch (pass.kind) {
          case PassKind::forward:
            ready = input_ready(r, pass.work, true);
            break;
          case PassKind::backward:
          case PassKind::backward_input:
            ready = input_ready(r, pass.work, false);
            break;
          case PassKind::weight:
            break;
          case PassKind::forward_backward: {
            auto f = input_ready(r, pass.work, true);
            auto b = input_ready(r, pass.backward, false);
            ready = (f && b) ? std::optional(std::max(*f, *b)) : std::nullopt;
            break;
          }
        }
        const SimTime duration = pass_duration(costs, r, pass);
        if (!ready) break;
        const SimTime start = std::max(free_at[ri], *ready);
        const SimTime end = start + duration;
        free_at[ri] = end;
        if (costs.blocking_p2p) {
          // Both directions of a combined pass go out in one batched exchange: the longer one holds the rank.
          SimTime held = SimTime::zero();
          if (pass.kind == PassKind::forward || pass.kind == PassKind::forward_backward)
            held = std::max(held, send_time(r, pass.work, true));
          if (pass.kind == PassKind::backward || pass.kind == PassKind::backward_input)
            held = std::max(held, send_time(r, pass.work, false));
          if (pass.kind == PassKind::forward_backward) held = std::max(held, send_time(r, pass.backward, false));
          free_at[ri] = end + held;
          t.sending[ri] += held;
        }
        t.busy[ri] += duration;
        if (with_passes) t.per_rank[ri].push_back({pass, start, end});
        const auto record = [&](DoneTimes& done, ChunkWork w) {
          done.set(s.stream_of(r, w.chunk), s.stage_of(r, w.chunk), w.microbatch, end);
        };
        if (pass.kind == PassKind::forward || pass.kind == PassKind::forward_backward) record(forward_done, pass.work);
        if (pass.kind == PassKind::backward || pass.kind == PassKind::backward_input) record(backward_done, pass.work);
        if (pass.kind == PassKind::forward_backward) record(backward_done, pass.backward);
        ++next[ri];
        --remaining;
        progressed = true;
      }
    }
    K3SIM_ASSERT(progressed, "pipeline schedule deadlocked");
  }
  t.makespan = *std::max_element(free_at.begin(), free_at.end());
  return t;
}

std::string to_string(PassKind k) {
  switch (k) {
    case PassKind::forward: return "F";
    case PassKind::backward: return "B";
    case PassKind::backward_input: return "B(input)";
    case PassKind::weight: return "W";
    case PassKind::forward_backward: return "F&B";
  }
  return "?";
}

}  // namespace k3::parallel
