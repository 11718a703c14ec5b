#pragma once
// How a step's ranks are laid out (scenario keys `parallel.*` and `batch.*`): what the rank mapping, the
// stage split and the pipeline schedules read. Parsed from YAML by sim/input; the schedules are
// registered by name (sim/parallel/schedule_registry.hpp).
#include <cstdint>

namespace k3::parallel {

struct PipelineScheduleEntry;  // schedule_registry.hpp
const PipelineScheduleEntry& default_pipeline_schedule();

struct ParallelLayout {
  int tp = 1;
  int pp = 1;
  int vpp = 1;        // virtual stages per rank (interleaved 1F1B)
  int ep = 1;
  int cp = 1;
  int dp = 0;         // 0: derived as GPUs / (tp * pp * cp)
  int zero_stage = 1; // 0-3
  const PipelineScheduleEntry* schedule = &default_pipeline_schedule();  // never null
  bool ep_spread = false;  // false: EP groups over as few nodes as possible
  bool overlap_grad_reduce = true;  // DP gradient reduction overlapped with the last backward pass
};

// Expert data parallelism: each routed expert is replicated over dp / ep ranks (1 before dp is resolved).
inline int expert_dp(const ParallelLayout& l) { return l.ep > 0 && l.dp >= l.ep ? l.dp / l.ep : 1; }

struct BatchSpec {
  std::int64_t seq_len = 4096;
  std::int64_t global_batch_seqs = 0;
  std::int64_t micro_batch_seqs = 1;
};

}  // namespace k3::parallel
