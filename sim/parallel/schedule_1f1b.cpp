// 1F1B (PipeDream-Flush, as in Megatron-LM): warm-up forwards, then one forward and one backward in turn.
#include "sim/parallel/schedule_registry.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace k3::parallel {

namespace {

using core::InputError;

PipelineSchedule one_f_one_b(int p, int m) {
  PipelineSchedule s;
  s.ranks = p;
  s.microbatches = m;
  s.passes.resize(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    auto& list = s.passes[static_cast<std::size_t>(r)];
    const int warmup = std::min(p - r - 1, m);
    for (int i = 0; i < warmup; ++i) append_pass(list, PassKind::forward, {0, i});
    for (int i = 0; i < m - warmup; ++i) {
      append_pass(list, PassKind::forward, {0, warmup + i});
      append_pass(list, PassKind::backward, {0, i});
    }
    for (int i = m - warmup; i < m; ++i) append_pass(list, PassKind::backward, {0, i});
  }
  return s;
}

}  // namespace

extern const PipelineScheduleEntry kOneFOneBSchedule{
    "1f1b", "one forward, one backward (PipeDream-Flush, Megatron-LM's default); bubble (PP - 1) / micro-batches",
    false,
    [](int pp, int /*vpp*/, int microbatches) { return one_f_one_b(pp, microbatches); },
    [](int pp, int /*vpp*/, int rank, int microbatches) { return double(std::min(pp - rank, microbatches)); }};

}  // namespace k3::parallel
