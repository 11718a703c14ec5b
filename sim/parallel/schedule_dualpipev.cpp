#include "sim/parallel/schedule_registry.hpp"

#include <deque>
#include <string>

#include "core/error.hpp"

namespace k3::parallel {

namespace {

using core::InputError;

// DualPipeV (deepseek-ai/DualPipe, README "DualPipeV"; Sea AI Lab's "cut-in-half" DualPipe): DualPipe's first
// half of the ranks with the reverse direction folded onto them, so one stream of micro-batches runs down the
// P ranks through stages 0..P-1 (chunk 0) and back up through stages P..2P-1 (chunk 1). The eight phases follow
// the reference schedule (dualpipe/dualpipev.py, DualPipeV.step); the last rank plays DualPipe's middle rank.
class DualPipeVBuilder {
 public:
  DualPipeVBuilder(int p, int r, int m) : p_(p), r_(r), m_(m) {}

  std::vector<Pass> build() {
    const int to_last = p_ - r_ - 1;  // ranks below this one on the way down
    const bool last_rank = to_last == 0;
    for (int i = 0; i < 2 * to_last; ++i) forward(0);                                    // nF0
    for (int i = 0; i < r_ + 1; ++i) {                                                    // nF0F1
      forward(0);
      forward(1);
    }
    for (int i = 0; i < to_last; ++i) {                                                   // nB1W1F1
      backward(1, true);
      weight();
      forward(1);
    }
    for (int i = 0; i < m_ - 2 * p_ + r_ + 1; ++i) {                                      // nF0B1F1B0
      if (i == 0 && last_rank) {
        forward(0);  // the reference does not overlap the last rank's first pair, to shorten the bubble
        backward(1, false);
      } else {
        forward_backward(0, 1);
      }
      forward_backward(1, 0);
    }
    for (int i = 0; i < to_last; ++i) {                                                   // nB1F1B0
      backward(1, false);
      forward_backward(1, 0);
    }
    const int step6 = r_ + 1;                                                             // nB1B0
    bool zero_bubble = false;  // the second half of these backwards defer their weight gradients
    for (int i = 0; i < step6; ++i) {
      if (i == step6 / 2 && r_ % 2 == 1) zero_bubble = true;
      backward(1, zero_bubble);
      if (i == step6 / 2 && r_ % 2 == 0) zero_bubble = true;
      backward(0, zero_bubble);
    }
    for (int i = 0; i < to_last; ++i) {                                                   // nWB0
      weight();
      backward(0, true);
    }
    for (int i = 0; i < r_ + 1; ++i) weight();                                            // nW
    K3SIM_ASSERT(deferred_.empty(), "DualPipeV schedule left deferred weight passes");
    return std::move(list_);
  }

 private:
  // Phase 0 is chunk 0 (stage r, on the way down), phase 1 chunk 1 (stage 2P-1-r, on the way back up).
  ChunkWork next_forward(int chunk) { return {chunk, f_[chunk]++}; }
  ChunkWork next_backward(int chunk) { return {chunk, b_[chunk]++}; }
  void forward(int chunk) { append_pass(list_, PassKind::forward, next_forward(chunk)); }
  void backward(int chunk, bool zero_bubble) {
    const auto w = next_backward(chunk);
    if (zero_bubble) {
      append_pass(list_, PassKind::backward_input, w);
      deferred_.push_back(w);
    } else {
      append_pass(list_, PassKind::backward, w);
    }
  }
  // Deferred weight passes run first in, first out, as the reference's WeightGradStore queue.
  void weight() {
    K3SIM_ASSERT(!deferred_.empty(), "DualPipeV weight pass with nothing deferred");
    append_pass(list_, PassKind::weight, deferred_.front());
    deferred_.pop_front();
  }
  void forward_backward(int f_chunk, int b_chunk) {
    const auto f = next_forward(f_chunk);
    const auto b = next_backward(b_chunk);
    append_pass(list_, PassKind::forward_backward, f, b);
  }

  int p_, r_, m_;
  int f_[2] = {0, 0};
  int b_[2] = {0, 0};
  std::deque<ChunkWork> deferred_;
  std::vector<Pass> list_;
};

PipelineSchedule dualpipev(int p, int m) {
  PipelineSchedule s;
  s.layout = ChunkLayout::v_shape;
  s.ranks = p;
  s.chunks_per_rank = 2;
  s.streams = 1;
  s.microbatches = m;
  for (int r = 0; r < p; ++r) s.passes.push_back(DualPipeVBuilder(p, r, m).build());
  return s;
}

}  // namespace

extern const PipelineScheduleEntry kDualPipeVSchedule{
    "dualpipev",
    "DualPipeV (DeepSeek, cut-in-half DualPipe): micro-batches go down the ranks and back up a V of 2 x PP stages, "
    "forward and backward chunks overlapped; bubble (PP - 1)(F&B + B - 3W) per stage",
    false,
    [](int pp, int /*vpp*/, int microbatches) {
      // DualPipeV.step asserts num_chunks >= 2 x num_ranks: the warm-up alone runs 2 x PP forwards on rank 0.
      if (microbatches < 2 * pp) {
        throw InputError({"", "batch.micro_batch_seqs", 0},
                         "pipeline schedule dualpipev needs at least 2 x PP = " + std::to_string(2 * pp) +
                             " micro-batches per pipeline; got " + std::to_string(microbatches),
                         "a global batch, DP and micro-batch size giving >= 2 x PP micro-batches");
      }
      return dualpipev(pp, microbatches);
    },
    [](int pp, int /*vpp*/, int /*rank*/, int /*microbatches*/) {
      // Every rank peaks at 2 x PP + 1 micro-batches of one stage (the README's "PP + 1" counts the 2 x PP
      // stages): 2 x PP after the warm-up, one more while an F&B pass runs. The rank holds two stages.
      return (2 * pp + 1) / 2.0;
    }};

}  // namespace k3::parallel
