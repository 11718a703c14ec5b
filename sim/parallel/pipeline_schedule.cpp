#include "sim/parallel/pipeline_schedule.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

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

PipelineTimeline execute_pipeline(const PipelineSchedule& s, const PassCosts& costs) {
  // Completion times of forward and backward(-input) per (stream, stage, micro-batch).
  using Key = std::tuple<int, int, int>;
  std::map<Key, SimTime> forward_done;
  std::map<Key, SimTime> backward_done;
  const int last_stage = s.stages() - 1;

  PipelineTimeline t;
  t.per_rank.resize(s.passes.size());
  t.busy.assign(s.passes.size(), SimTime::zero());
  t.sending.assign(s.passes.size(), SimTime::zero());
  std::vector<std::size_t> next(s.passes.size(), 0);
  std::vector<SimTime> free_at(s.passes.size(), SimTime::zero());

  // When the inputs of F (or B) of `w` on `rank` are there, or nullopt if not yet computed.
  auto input_ready = [&](int rank, ChunkWork w, bool is_forward) -> std::optional<SimTime> {
    const int stage = s.stage_of(rank, w.chunk);
    const int stream = s.stream_of(rank, w.chunk);
    if (is_forward && stage == 0) return SimTime::zero();
    if (!is_forward && stage == last_stage) {
      auto it = forward_done.find({stream, stage, w.microbatch});
      return it == forward_done.end() ? std::nullopt : std::optional(it->second);
    }
    const int from_stage = is_forward ? stage - 1 : stage + 1;
    auto& done = is_forward ? forward_done : backward_done;
    auto it = done.find({stream, from_stage, w.microbatch});
    if (it == done.end()) return std::nullopt;
    const int from_rank = s.holder_of(stream, from_stage).first;
    return from_rank == rank ? it->second : it->second + costs.p2p(from_rank, rank);
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
        SimTime duration;
        switch (pass.kind) {
          case PassKind::forward:
            ready = input_ready(r, pass.work, true);
            duration = costs.forward(r, pass.work.chunk);
            break;
          case PassKind::backward:
            ready = input_ready(r, pass.work, false);
            duration = costs.backward(r, pass.work.chunk);
            break;
          case PassKind::backward_input:
            ready = input_ready(r, pass.work, false);
            duration = costs.backward(r, pass.work.chunk) - costs.weight(r, pass.work.chunk);
            break;
          case PassKind::weight:
            duration = costs.weight(r, pass.work.chunk);
            break;
          case PassKind::forward_backward: {
            auto f = input_ready(r, pass.work, true);
            auto b = input_ready(r, pass.backward, false);
            ready = (f && b) ? std::optional(std::max(*f, *b)) : std::nullopt;
            duration = costs.forward_backward(r, pass.work.chunk, pass.backward.chunk);
            break;
          }
        }
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
        t.per_rank[ri].push_back({pass, start, end});
        auto key = [&](ChunkWork w) {
          return Key{s.stream_of(r, w.chunk), s.stage_of(r, w.chunk), w.microbatch};
        };
        if (pass.kind == PassKind::forward || pass.kind == PassKind::forward_backward) {
          forward_done[key(pass.work)] = end;
        }
        if (pass.kind == PassKind::backward || pass.kind == PassKind::backward_input) {
          backward_done[key(pass.work)] = end;
        }
        if (pass.kind == PassKind::forward_backward) backward_done[key(pass.backward)] = end;
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
