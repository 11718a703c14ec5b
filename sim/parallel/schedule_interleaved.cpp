#include "sim/parallel/schedule_registry.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"

namespace k3::parallel {

namespace {

using core::InputError;

// Megatron-LM's interleaved schedule: micro-batches go through the virtual chunks in groups of p.
PipelineSchedule interleaved(int p, int v, int m) {
  PipelineSchedule s;
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
    for (int k = 0; k < warmup; ++k) append_pass(list, PassKind::forward, fwd(k));
    for (int i = 0; i < total - warmup; ++i) {
      append_pass(list, PassKind::forward, fwd(warmup + i));
      append_pass(list, PassKind::backward, bwd(i));
    }
    for (int k = total - warmup; k < total; ++k) append_pass(list, PassKind::backward, bwd(k));
  }
  return s;
}

}  // namespace

extern const PipelineScheduleEntry kInterleavedSchedule{
    "interleaved",
    "interleaved 1F1B over parallel.vpp virtual stages per rank (Megatron-LM); bubble shrinks by vpp",
    true,
    [](int pp, int vpp, int microbatches) {
      if (microbatches % pp != 0) {
        throw InputError({"", "batch.micro_batch_seqs", 0},
                         "pipeline schedule interleaved needs micro-batches per pipeline (" +
                             std::to_string(microbatches) + ") to be a multiple of PP (" + std::to_string(pp) + ")",
                         "a global batch, DP and micro-batch size giving a multiple of PP micro-batches");
      }
      return interleaved(pp, vpp, microbatches);
    },
    [](int pp, int vpp, int rank, int microbatches) {
      // Megatron-LM interleaved warm-up: (pp - rank - 1) * 2 + (vpp - 1) * pp + 1 chunk passes in flight,
      // each a 1/vpp share of the rank's layers.
      return std::min<double>(((pp - rank - 1) * 2 + (vpp - 1) * pp + 1) / static_cast<double>(vpp), microbatches);
    }};

}  // namespace k3::parallel
