#include "sim/plan/pipeline_schedule.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>

#include "sim/core/error.hpp"

namespace k3::plan {

namespace {

using core::InputError;
using core::SimTime;

void append(std::vector<Pass>& list, PassKind kind, ChunkWork w, ChunkWork b = {}) {
  list.push_back(Pass{kind, w, b});
}

PipelineSchedule one_f_one_b(int p, int m) {
  PipelineSchedule s;
  s.kind = PipelineScheduleKind::one_f_one_b;
  s.ranks = p;
  s.microbatches = m;
  s.passes.resize(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    auto& list = s.passes[static_cast<std::size_t>(r)];
    const int warmup = std::min(p - r - 1, m);
    for (int i = 0; i < warmup; ++i) append(list, PassKind::forward, {0, i});
    for (int i = 0; i < m - warmup; ++i) {
      append(list, PassKind::forward, {0, warmup + i});
      append(list, PassKind::backward, {0, i});
    }
    for (int i = m - warmup; i < m; ++i) append(list, PassKind::backward, {0, i});
  }
  return s;
}

// Megatron-LM's interleaved schedule: micro-batches go through the virtual chunks in groups of p.
PipelineSchedule interleaved(int p, int v, int m) {
  PipelineSchedule s;
  s.kind = PipelineScheduleKind::interleaved;
  s.ranks = p;
  s.chunks_per_rank = v;
  s.microbatches = m;
  s.passes.resize(static_cast<std::size_t>(p));
  const int total = m * v;
  auto fwd = [&](int k) { return ChunkWork{(k / p) % v, (k / (p * v)) * p + k % p}; };
  auto bwd = [&](int k) { return ChunkWork{v - 1 - (k / p) % v, (k / (p * v)) * p + k % p}; };
  for (int r = 0; r < p; ++r) {
    auto& list = s.passes[static_cast<std::size_t>(r)];
    const int warmup = (m == p) ? total : std::min((p - r - 1) * 2 + (v - 1) * p, total);
    for (int k = 0; k < warmup; ++k) append(list, PassKind::forward, fwd(k));
    for (int i = 0; i < total - warmup; ++i) {
      append(list, PassKind::forward, fwd(warmup + i));
      append(list, PassKind::backward, bwd(i));
    }
    for (int k = total - warmup; k < total; ++k) append(list, PassKind::backward, bwd(k));
  }
  return s;
}

// DualPipe (DeepSeek-V3, arXiv:2412.19437 section 3.2.1): rank r holds stage r of the forward-direction
// pipeline and stage P-1-r of the reverse one; half the micro-batches enter from each end. The eight
// phases below follow the published reference schedule (deepseek-ai/DualPipe, DualPipe.step).
class DualPipeBuilder {
 public:
  DualPipeBuilder(int p, int r, int m) : p_(p), r_(r), m_(m), second_half_(r >= p / 2) {}

  std::vector<Pass> build() {
    const int half_ranks = p_ / 2;
    const int half_rank = std::min(r_, p_ - 1 - r_);
    const int half_chunks = m_ / 2;
    const bool middle = (r_ == half_ranks - 1) || (r_ == half_ranks);
    for (int i = 0; i < (half_ranks - half_rank - 1) * 2; ++i) forward(0);             // nF0
    for (int i = 0; i < half_rank + 1; ++i) {                                           // nF0F1
      forward(0);
      forward(1);
    }
    for (int i = 0; i < half_ranks - half_rank - 1; ++i) {                              // nB1W1F1
      backward(1, true);
      weight();
      forward(1);
    }
    for (int i = 0; i < half_chunks - p_ + half_rank + 1; ++i) {                         // nF0B1F1B0
      if (i == 0 && middle) {
        forward(0);  // the middle ranks do not overlap their first pair, to shorten the bubble
        backward(1, false);
      } else {
        forward_backward(0, 1);
      }
      forward_backward(1, 0);
    }
    for (int i = 0; i < half_ranks - half_rank - 1; ++i) {                              // nB1F1B0
      backward(1, false);
      forward_backward(1, 0);
    }
    const int step6 = half_rank + 1;                                                    // nB1B0
    bool zero_bubble = false;
    for (int i = 0; i < step6; ++i) {
      if (i == step6 / 2 && half_rank % 2 == 1) zero_bubble = true;
      backward(1, zero_bubble);
      if (i == step6 / 2 && half_rank % 2 == 0) zero_bubble = true;
      backward(0, zero_bubble);
    }
    for (int i = 0; i < half_ranks - half_rank - 1; ++i) {                              // nWB0
      weight();
      backward(0, true);
    }
    for (int i = 0; i < half_rank + 1; ++i) weight();                                    // nW
    K3SIM_ASSERT(deferred_.empty(), "DualPipe schedule left deferred weight passes");
    return std::move(list_);
  }

 private:
  // Phase 0 is this rank's forward-direction chunk in the first half of the ranks, the reverse one after.
  int chunk_of(int phase) const { return phase ^ (second_half_ ? 1 : 0); }
  ChunkWork next_forward(int phase) { return {chunk_of(phase), f_[chunk_of(phase)]++}; }
  ChunkWork next_backward(int phase) { return {chunk_of(phase), b_[chunk_of(phase)]++}; }
  void forward(int phase) { append(list_, PassKind::forward, next_forward(phase)); }
  void backward(int phase, bool zero_bubble) {
    const auto w = next_backward(phase);
    if (zero_bubble) {
      append(list_, PassKind::backward_input, w);
      deferred_.push_back(w);
    } else {
      append(list_, PassKind::backward, w);
    }
  }
  void weight() {
    K3SIM_ASSERT(!deferred_.empty(), "DualPipe weight pass with nothing deferred");
    append(list_, PassKind::weight, deferred_.front());
    deferred_.pop_front();
  }
  void forward_backward(int f_phase, int b_phase) {
    const auto f = next_forward(f_phase);
    const auto b = next_backward(b_phase);
    append(list_, PassKind::forward_backward, f, b);
  }

  int p_, r_, m_;
  bool second_half_;
  int f_[2] = {0, 0};
  int b_[2] = {0, 0};
  std::deque<ChunkWork> deferred_;
  std::vector<Pass> list_;
};

PipelineSchedule dualpipe(int p, int m) {
  PipelineSchedule s;
  s.kind = PipelineScheduleKind::dualpipe;
  s.ranks = p;
  s.chunks_per_rank = 2;
  s.streams = 2;
  s.microbatches = m;
  for (int r = 0; r < p; ++r) s.passes.push_back(DualPipeBuilder(p, r, m).build());
  return s;
}

}  // namespace

int PipelineSchedule::stage_of(int rank, int chunk) const {
  if (kind == PipelineScheduleKind::dualpipe) return chunk == 0 ? rank : ranks - 1 - rank;
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
  return kind == PipelineScheduleKind::dualpipe ? chunk : 0;
}

std::pair<int, int> PipelineSchedule::holder_of(int stream, int stage) const {
  if (kind == PipelineScheduleKind::dualpipe) return stream == 0 ? std::pair{stage, 0} : std::pair{ranks - 1 - stage, 1};
  return {stage % ranks, stage / ranks};
}

PipelineSchedule make_schedule(PipelineScheduleKind kind, int pp, int vpp, int microbatches) {
  const std::string where = "pipeline schedule " + to_string(kind);
  if (pp < 1 || vpp < 1 || microbatches < 1) {
    throw InputError({"", "parallel.pp", 0}, "PP, virtual stages and micro-batches must be >= 1");
  }
  switch (kind) {
    case PipelineScheduleKind::one_f_one_b:
      return one_f_one_b(pp, microbatches);
    case PipelineScheduleKind::interleaved:
      if (microbatches % pp != 0) {
        throw InputError({"", "batch.micro_batch_seqs", 0},
                         where + " needs micro-batches per pipeline (" + std::to_string(microbatches) +
                             ") to be a multiple of PP (" + std::to_string(pp) + ")",
                         "a global batch, DP and micro-batch size giving a multiple of PP micro-batches");
      }
      return interleaved(pp, vpp, microbatches);
    case PipelineScheduleKind::dualpipe:
      if (pp % 2 != 0) {
        throw InputError({"", "parallel.pp", 0}, where + " needs an even PP, got " + std::to_string(pp),
                         "PP = 2, 4, 6, ...");
      }
      if (microbatches % 2 != 0 || microbatches < 2 * pp) {
        throw InputError({"", "batch.micro_batch_seqs", 0},
                         where + " needs an even number of micro-batches per pipeline, at least 2 x PP = " +
                             std::to_string(2 * pp) + "; got " + std::to_string(microbatches),
                         "a global batch, DP and micro-batch size giving >= 2 x PP micro-batches");
      }
      return dualpipe(pp, microbatches);
  }
  throw core::InternalError("unknown pipeline schedule");
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

}  // namespace k3::plan
