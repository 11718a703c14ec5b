#include "sim/parallel/schedule_registry.hpp"

#include <algorithm>
#include <deque>
#include <string>

#include "core/error.hpp"

namespace k3::parallel {

namespace {

using core::InputError;

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
  void forward(int phase) { append_pass(list_, PassKind::forward, next_forward(phase)); }
  void backward(int phase, bool zero_bubble) {
    const auto w = next_backward(phase);
    if (zero_bubble) {
      append_pass(list_, PassKind::backward_input, w);
      deferred_.push_back(w);
    } else {
      append_pass(list_, PassKind::backward, w);
    }
  }
  void weight() {
    K3SIM_ASSERT(!deferred_.empty(), "DualPipe weight pass with nothing deferred");
    append_pass(list_, PassKind::weight, deferred_.front());
    deferred_.pop_front();
  }
  void forward_backward(int f_phase, int b_phase) {
    const auto f = next_forward(f_phase);
    const auto b = next_backward(b_phase);
    append_pass(list_, PassKind::forward_backward, f, b);
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
  s.layout = ChunkLayout::bidirectional;
  s.ranks = p;
  s.chunks_per_rank = 2;
  s.streams = 2;
  s.microbatches = m;
  for (int r = 0; r < p; ++r) s.passes.push_back(DualPipeBuilder(p, r, m).build());
  return s;
}

}  // namespace

extern const PipelineScheduleEntry kDualPipeSchedule{
    "dualpipe",
    "DualPipe (DeepSeek-V3): two pipelines in opposite directions, forward and backward chunks overlapped",
    false,
    [](int pp, int /*vpp*/, int microbatches) {
      if (pp % 2 != 0) {
        throw InputError({"", "parallel.pp", 0},
                         "pipeline schedule dualpipe needs an even PP, got " + std::to_string(pp), "PP = 2, 4, 6, ...");
      }
      if (microbatches % 2 != 0 || microbatches < 2 * pp) {
        throw InputError({"", "batch.micro_batch_seqs", 0},
                         "pipeline schedule dualpipe needs an even number of micro-batches per pipeline, at least "
                         "2 x PP = " + std::to_string(2 * pp) + "; got " + std::to_string(microbatches),
                         "a global batch, DP and micro-batch size giving >= 2 x PP micro-batches");
      }
      return dualpipe(pp, microbatches);
    },
    [](int pp, int /*vpp*/, int /*rank*/, int /*microbatches*/) {
      // PP + 1 chunks of one stage each; the rank holds two stages, so (PP + 1) / 2 micro-batches through both.
      return (pp + 1) / 2.0;
    }};

}  // namespace k3::parallel
