#pragma once
// Everything that shapes one serving simulation besides the model and the cluster: the deployment, the
// request stream, the scheduler and the SLO, as a serving scenario resolves them (sim/input/serve_scenario).
// Documented key by key in scenarios/README.md ("Serving scenarios").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/cost/precision.hpp"
#include "sim/net/network_registry.hpp"

namespace k3::serve {

// One model instance over `nodes` whole nodes whose attention runs data-parallel (`attention_dp` ranks, each
// with its own batch and KV cache) with TP = GPUs / attention_dp inside a rank. Its routed experts are split
// `moe_tp` ways each (expert tensor parallelism) over EP groups of GPUs / moe_tp: moe_tp 1 is one EP group
// over the instance (DeepEP's all-to-alls); above 1 the tokens of every rank are gathered onto every GPU and
// the expert outputs reduce-scattered back (SGLang's and vLLM's MoE without DeepEP, `--moe-tp-size`).
struct InstanceSpec {
  int nodes = 1;
  int attention_dp = 8;
  int moe_tp = 1;
  // Prefill only: pipeline stages, each on GPUs / pp of the instance with the layers split evenly (the attention DP
  // ranks and the MoE groups above are a stage's); chunks of long prompts follow each other through the stages.
  int pp = 1;
  int redundant_experts = 0;  // EPLB replicas beyond the model's experts, spread over the instance's GPUs
  // Weights each GPU keeps in host memory (vLLM's and SGLang's --cpu-offload-gb, here in GB = 1e9 B), read over
  // the GPU's host link by every forward as it runs (unified memory), so they add to each iteration.
  double weight_offload_bytes_per_gpu = 0;
};

enum class DeploymentKind { colocated, disaggregated };

struct DeploymentSpec {
  DeploymentKind kind = DeploymentKind::disaggregated;
  InstanceSpec prefill;      // colocated: the one instance type, doing both
  InstanceSpec decode;
  int prefill_instances = 1;
  int decode_instances = 1;  // colocated: ignored
};

// How a length is drawn: fixed, uniform over [min, max], or lognormal with this mean and sigma (clipped to
// [min, max]).
struct LengthDistribution {
  enum class Kind { fixed, uniform, lognormal } kind = Kind::fixed;
  double mean = 1000, min = 1, max = 1e9, sigma = 0.5;
};

struct TraceRequest {
  double arrival_s = 0;
  double prompt_tokens = 0;
  double output_tokens = 0;
};

struct ArrivalSpec {
  enum class Kind { poisson, closed_loop, trace } kind = Kind::poisson;
  double rate_per_s = 1;      // poisson
  int concurrency = 1;        // closed_loop: requests in the system at every moment
  std::vector<TraceRequest> trace;  // trace: read from the file the scenario names
};

struct ServeWorkload {
  ArrivalSpec arrival;
  LengthDistribution prompt, output;
  double prefix_cache_hit = 0;  // share of each prompt's tokens found in the prefix cache (not recomputed)
  int mtp_draft_tokens = 0;     // speculative tokens verified per decode step (MTP depth)
  double mtp_acceptance = 0;    // probability that each draft token is accepted, given the ones before were
  double duration_s = 60;       // arrivals stop after this much simulated time; the system then drains
  double warmup_s = 0;          // requests arriving before this are simulated but not measured
};

struct SchedulerSpec {
  double prefill_token_budget = 8192;  // new tokens per attention-DP rank per iteration (chunked prefill)
  int max_running_per_rank = 256;      // decode sequences per attention-DP rank
  int page_tokens = 64;                // KV cache page (block) size
  double memory_reserve_fraction = 0.1;  // HBM kept for activations, CUDA graphs and the runtime
  // scheduler.overlap (overlap_options.hpp)
  bool two_batch_overlap = true;       // SGLang/DeepSeek TBO: two micro-batches, compute overlaps the all-to-all
  bool combine_with_down_gemm = false; // SGLang's single-batch overlap: decode's combine under the down GEMM
  bool shared_experts_with_dispatch = false;  // the other half: the shared experts beside the dispatch
};

struct Slo {
  double ttft_s = 2.0;
  double tpot_s = 0.1;
};

struct ServeSpec {
  std::string source;   // file the settings came from, named in errors
  std::string name;
  std::uint64_t seed = 1;
  DeploymentSpec deployment;
  ServeWorkload workload;
  SchedulerSpec scheduler;
  Slo slo;
  cost::Precision gemm_precision = cost::Precision::fp8;
  // kernel_tables: roofline. Otherwise GEMMs, expert GEMMs and prefill attention are priced from the kernel latencies
  // measured on the GPU type (SGLang's own kernels, cost/measured_kernels.hpp), as a training step's are.
  bool roofline_kernels = false;
  double weight_bytes_per_param = 1;     // FP8 checkpoints (DeepSeek-V3, K3 serving) hold one byte per weight
  double dispatch_bytes_per_element = 1 + 4.0 / 128;  // FP8 with fp32 scales per 128, BF16 combine (DeepEP)
  double combine_bytes_per_element = 2;
  // precision.kv_cache: the MLA / GQA cache's element; FP8 (E4M3 with one scale per tensor and layer, SGLang's
  // and vLLM's --kv-cache-dtype fp8_e4m3) halves what a sequence holds and what decode attention reads.
  double kv_cache_bytes_per_element = 2;
  const net::NetworkModelEntry* network = &net::default_network_model();
  std::optional<double> price_per_gpu_hour;  // USD, for $ per 1M output tokens
};

}  // namespace k3::serve
