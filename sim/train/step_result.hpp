#pragma once
// What one simulated training step produced: the numbers `k3sim run` prints, writes as JSON and draws in
// the HTML report (one data source for all three).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/provenance.hpp"
#include "sim/parallel/group_placement.hpp"

namespace k3::train {

// Seconds of the step attributed to one cause, on the critical rank.
struct TimeShare {
  std::string name;      // "compute: expert GEMM", "exposed: all-to-all dispatch", "pipeline bubble", ...
  std::string category;  // "compute", "communication", "host", "bubble", "optimizer"
  double seconds = 0;
};

struct MemoryShare {
  std::string name;  // "weights", "gradients", "optimizer state", "activations", "communication buffers"
  double bytes = 0;
};

// Bytes of all the shares: what one GPU holds.
inline double memory_total(const std::vector<MemoryShare>& shares) {
  double sum = 0;
  for (const auto& s : shares) sum += s.bytes;
  return sum;
}

struct LinkClassUse {
  std::string link_class;       // nvlink, nic, leaf_spine, ..., host (the GPUs' host ports, both directions)
  double bytes = 0;             // carried in the simulated window (all links of the class)
  double mean_utilisation = 0;  // bytes / (the class's capacity x step time), in [0, 1] (checked)
};

// One interval on a timeline track, for the trace and the report's Gantt chart.
struct TraceSpan {
  int rank = 0;             // pipeline rank (or GPU in the EP-group view)
  std::string track;        // "compute", "comm"
  std::string name;         // "F mb3 chunk0", "dispatch L12"
  std::string kind;         // forward, backward, weight, forward_backward, alltoall, ...
  double start_s = 0;
  double end_s = 0;
};

// One op of a representative pass on one GPU of the simulated group (StepResult::op_trace): a compute op on
// the GPU's compute stream, or the GPU's part of a collective on the stream of that collective's kind.
struct OpTraceSlice {
  int gpu = 0;              // global GPU index
  std::string stream;       // "compute", or the collective's kind: "all-to-all dispatch", "all-reduce", ...
  std::string name;         // the op category ("dense GEMM") or the collective's label ("dispatch L12")
  std::string micro_batch;  // "mb 3 forward", "mb 0 backward": which micro-batch of the pass it belongs to
  double start_s = 0;       // in the step's time
  double end_s = 0;
  int collective = -1;      // index of the collective within its pass (slices of one collective share it); -1: compute
};

// One pass simulated op by op for the trace: the first pass of each kind (F, B, W, F&B) on the middle pipeline
// rank (else the lowest that runs it), placed where the pipeline timeline runs it.
struct OpTracePass {
  std::string kind;    // parallel::to_string(PassKind): "F", "B", "W", "F&B", ...
  std::string label;   // "F0/B1 mb7/0"
  int pipeline_rank = 0;
  double start_s = 0;
  double end_s = 0;
  std::vector<int> gpus;  // the simulated group's GPUs
  std::vector<OpTraceSlice> slices;
  // Mean utilisation of the group's links of each class over the pass: bytes moved / (duration x the
  // group's share of the class's capacity).
  std::map<std::string, double> link_utilisation;
};

// One pass of one decoder layer, for one micro-batch: the layer simulated alone on the step's network, on
// the GPUs of the simulated group (EP or TP group) with the step's expert load for that layer.
// The exposed time of a pass's GPU waiting for its host to issue work (launches and framework time).
inline constexpr std::string_view kHostWait = "host launches and framework";

struct LayerPassResult {
  std::map<std::string, double> compute_s;  // seconds on the GPU that finished last, by op category
  std::map<std::string, double> exposed_s;  // seconds of the pass not covered by compute, by collective
  std::map<std::string, double> bytes;      // by link class (nvlink, nic, ...), all GPUs of the group
  double compute_total_s() const {
    double s = 0;
    for (const auto& [name, v] : compute_s) s += v;
    return s;
  }
  double exposed_total_s() const {
    double s = 0;
    for (const auto& [name, v] : exposed_s) s += v;
    return s;
  }
};

// What one kind of decoder layer costs ("KDA+MoE", "MLA+dense", ...): the per-layer view that the stage
// passes of the pipeline add up.
struct LayerKindResult {
  std::string kind;
  int count = 0;  // decoder layers of this kind in the model
  LayerPassResult forward;
  LayerPassResult backward;  // input and weight gradients, with recomputation when the step recomputes
};

// The parallel layout the step ran, with what was derived from the scenario (DP, expert DP).
struct LayoutResult {
  int tp = 1, pp = 1, vpp = 1, ep = 1, cp = 1, dp = 1, expert_dp = 1, zero_stage = 1, etp = 1;
  std::string schedule;
  std::int64_t micro_batch_seqs = 1;
  std::int64_t seq_len = 0;
  std::string recompute;                          // model::to_string of the policy
  int gpus_per_domain = 1;                        // GPUs of one NVLink domain (topology node)
  std::vector<parallel::GroupPlacement> placement;  // NVLink domains each kind of group spans
};

// The symmetry shortcut checked (symmetry_check.hpp): the first MoE layer's dispatch all-to-all of the
// simulated block alone, and beside the same collective of every other block of the job, on the analytical
// network. ran is false without EP all-to-alls (or when the EP group is spread, which the check cannot tile).
struct SymmetryCheckResult {
  bool ran = false;
  double block_s = 0;
  double fabric_s = 0;
  int blocks = 0;            // copies of the block on the job's GPUs
  int sharing_blocks = 0;    // other blocks whose transfers cross a link this block's cross
  bool full_fabric = false;  // the step's all-to-alls ran in full-fabric mode
  std::string scope;         // network_scope as written: auto, block or fabric
  double difference() const { return block_s > 0 ? fabric_s / block_s - 1 : 0; }
};

// GPU speeds as the step ran them (parallel/gpu_speed.hpp): modelled is false where every GPU runs at the kernel
// tables' speed. Speeds are over that GPU's.
struct GpuSpeedResult {
  bool modelled = false;
  double spread = 0;           // gpu_speed.spread as written
  int listed = 0;              // GPUs set one by one (gpu_speed.slow)
  std::int64_t in_ranges = 0;  // GPUs set by range (gpu_speed.ranges; overlaps counted once per range)
  std::uint32_t slowest_gpu = 0;
  double slowest_speed = 1;
  std::vector<double> rank_slowest;  // [pipeline rank]: the slowest GPU of the block its passes ran on
};

struct StepResult {
  std::string scenario;
  std::string model;
  std::string topology;
  std::int64_t gpus = 0;
  std::uint64_t seed = 0;
  double step_time_s = 0;
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double model_flops_per_step = 0;       // causal convention, no recomputation counted
  double tflops_per_gpu = 0;             // model FLOPs / step time / GPUs / 1e12
  double mfu = 0;                        // against the BF16 dense peak of the GPU
  double mfu_fp8 = 0;                    // against the FP8 dense peak (when GEMMs run in FP8)
  double peak_flops_per_s_bf16 = 0;
  double peak_flops_per_s_fp8 = 0;
  std::vector<TimeShare> breakdown;      // sums to step_time_s
  // Of the critical rank's compute by category ("compute: " + category in breakdown), the seconds priced from
  // measured kernel latencies (kernel tables or a calibration profile); the rest is the roofline.
  std::map<std::string, double> measured_compute_s;
  // A compute entry of breakdown by its op category: "compute: dense GEMM" -> "dense GEMM"; an entry the
  // accounting added under its own name (the load balancer's kernels) keeps it.
  static std::string compute_category_of(const TimeShare& s) {
    constexpr std::string_view kPrefix = "compute: ";
    return s.name.starts_with(kPrefix) ? s.name.substr(kPrefix.size()) : s.name;
  }
  double measured_seconds_of(const TimeShare& s) const {
    const auto it = measured_compute_s.find(compute_category_of(s));
    return it == measured_compute_s.end() ? 0.0 : it->second;
  }
  double measured_compute_share() const {  // of all compute categories' seconds, 0..1
    double compute = 0, measured = 0;
    for (const auto& s : breakdown) {
      if (s.category == "compute") compute += s.seconds;
    }
    for (const auto& [name, v] : measured_compute_s) measured += v;
    return compute > 0 ? measured / compute : 0;
  }
  std::vector<MemoryShare> memory;       // per GPU, on the most loaded rank
  double hbm_bytes = 0;
  bool fits_in_memory = true;
  std::vector<LinkClassUse> links;
  std::vector<TraceSpan> trace;          // pipeline timeline of one step
  std::vector<OpTracePass> op_trace;     // per-op view of one pass per kind (StepOptions::op_trace)
  int microbatches = 0;                  // per pipeline
  std::string network_model;             // flow or analytical
  std::vector<std::string> assumptions;  // each with its source: the provenance entries, then notes
  std::vector<core::ProvenanceEntry> provenance;  // every number the step read, with range, kind and source
  std::string scenario_yaml;
  std::string version;
  double cost_per_trillion_tokens = 0;   // USD; 0 when no price was given
  double gpu_hours_per_trillion_tokens = 0;
  double simulated_events = 0;
  // Routed load per GPU of the simulated EP group, per routing sample (max/mean), against the sampling-noise
  // floor of the batch it was counted from (1 + floor; 1 when the load is exact). Empty without routed experts.
  std::vector<double> expert_load_max_over_mean;
  double expert_load_noise_floor_max_over_mean = 1;
  double expert_load_sample_tokens_per_step = 0;
  LayoutResult layout;
  SymmetryCheckResult symmetry;
  GpuSpeedResult gpu_speed;
  std::vector<LayerKindResult> layers;  // in model order of first appearance
};

}  // namespace k3::train
