#include "sim/parallel/pipeline_schedule.hpp"

#include <algorithm>

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

void repeat_schedule(PipelineSchedule& schedule, int times) {
  if (times <= 1) return;
  const int per_stream = schedule.microbatches / schedule.streams;
  for (auto& list : schedule.passes) {
    const std::vector<Pass> once = list;
    list.clear();
    list.reserve(once.size() * static_cast<std::size_t>(times));
    for (int k = 0; k < times; ++k) {
      for (Pass p : once) {
        p.work.microbatch += k * per_stream;
        if (p.kind == PassKind::forward_backward) p.backward.microbatch += k * per_stream;
        list.push_back(p);
      }
    }
  }
  schedule.microbatches *= times;
}

PipelineSchedule make_schedule(const PipelineScheduleEntry& entry, int pp, int vpp, int microbatches) {
  if (pp < 1 || vpp < 1 || microbatches < 1) {
    throw InputError({"", "parallel.pp", 0}, "PP, virtual stages and micro-batches must be >= 1");
  }
  return entry.make(pp, vpp, microbatches);
}

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

void merge_steady_state(PipelineSchedule& s) {
  for (int r = 0; r < s.ranks; ++r) {
    auto& list = s.passes[static_cast<std::size_t>(r)];
    std::vector<Pass> merged;
    merged.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Pass& b = list[i];
      if (b.kind == PassKind::backward && i + 1 < list.size() && list[i + 1].kind == PassKind::forward) {
        const Pass& f = list[i + 1];
        const bool needed = f.work.microbatch == b.work.microbatch && s.stream_of(r, f.work.chunk) == s.stream_of(r, b.work.chunk) &&
                            s.stage_of(r, f.work.chunk) >= s.stage_of(r, b.work.chunk);
        if (!needed) {
          merged.push_back(Pass{PassKind::forward_backward, f.work, b.work});
          ++i;
          continue;
        }
      }
      merged.push_back(b);
    }
    list = std::move(merged);
  }
}

void ask_each_pass(const PipelineSchedule& s, const PassCosts& costs) {
  for (int r = 0; r < s.ranks; ++r) {
    for (const Pass& pass : s.passes[static_cast<std::size_t>(r)]) (void)pass_duration(costs, r, pass);
  }
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
