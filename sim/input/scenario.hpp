#pragma once
// A scenario: everything one `k3sim run` needs, as read from a YAML file (documented key by key in
// scenarios/README.md). Loading checks syntax, types and ranges; resolving the model preset and the
// topology, and checking the layout against them, is the parallel plan's job.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/memory.hpp"
#include "sim/core/yaml_input.hpp"
#include "sim/plan/fp8_gemm_rates.hpp"

namespace k3::plan {

enum class PipelineScheduleKind { one_f_one_b, interleaved, dualpipe };
enum class AllToAllAlgorithm { flat, deepep };
enum class NetworkModelKind { flow, analytical };
enum class GemmPrecision { bf16, fp8 };
enum class ElementType { fp8, bf16 };
enum class ExpertLoadKind { uniform, balancer, state };

struct ParallelLayout {
  int tp = 1;
  int pp = 1;
  int vpp = 1;        // virtual stages per rank (interleaved 1F1B)
  int ep = 1;
  int cp = 1;
  int dp = 0;         // 0: derived as GPUs / (tp * pp * cp)
  int zero_stage = 1; // 0-3
  PipelineScheduleKind schedule = PipelineScheduleKind::one_f_one_b;
  bool ep_spread = false;  // false: EP groups over as few nodes as possible
  bool overlap_grad_reduce = true;  // DP gradient reduction overlapped with the last backward pass
};

struct BatchSpec {
  std::int64_t seq_len = 4096;
  std::int64_t global_batch_seqs = 0;
  std::int64_t micro_batch_seqs = 1;
};

struct PrecisionSpec {
  GemmPrecision gemm = GemmPrecision::bf16;
  ElementType dispatch = ElementType::bf16;
  ElementType combine = ElementType::bf16;
  double gradient_reduce_bytes = 4;  // precision.gradient_reduce: fp32 (4), or bf16 / fp16 (2)
};

struct CommunicationSpec {
  AllToAllAlgorithm alltoall = AllToAllAlgorithm::flat;
  bool blocking_pipeline_p2p = false;  // communication.pipeline_p2p: blocking (the sender waits) or overlapped
  int comm_sms = 0;      // SMs reserved for communication kernels (DeepEP: 20 on H800)
  int node_limit = 0;    // 0: no node-limited routing
};

struct ExpertLoadSpec {
  ExpertLoadKind kind = ExpertLoadKind::uniform;
  std::string balancer = "qb-hist";
  int steps = 20;
  int bins = 1000;
  std::string state;            // kind state: a `k3sim balance --write-state` file, resolved against the scenario
  core::InputLocation state_at;  // where `expert_load.state` was given, for errors found when it is read
};

struct OptimizerSpec {
  model::Optimizer kind = model::Optimizer::AdamW;
  int newton_schulz_iterations = 5;
  double moment_bytes = 4;  // optimizer.moment_dtype: fp32 (4) or bf16 (2, as DeepSeek-V3 keeps AdamW's moments)
};

struct Scenario {
  std::string source;          // file the scenario came from
  std::string name;
  std::uint64_t seed = 1;
  std::string model;           // preset name, model YAML or config.json path (relative paths resolved)
  std::string topology;        // topology preset name or file
  std::optional<std::int64_t> nodes;  // override of the topology's node count
  ParallelLayout parallel;
  BatchSpec batch;
  PrecisionSpec precision;
  CommunicationSpec communication;
  ExpertLoadSpec expert_load;
  model::Recompute recompute = model::Recompute::None;
  OptimizerSpec optimizer;
  NetworkModelKind network = NetworkModelKind::flow;
  bool unfused_attention = false;  // attention_kernel: unfused (Megatron-LM 2021) instead of flash
  Fp8GemmKernels fp8_gemm_kernels = Fp8GemmKernels::deepgemm;  // fp8_gemm_kernels: deepgemm or cutlass-3.6
  bool bf16_gemm_cuda11 = false;  // bf16_gemm_kernels: cuda12 (default) or cuda11
  int bf16_gemm_kernels_line = 0;  // its YAML line, for the error when the GPU has no CUDA 11 measurement
  std::string profile;         // calibration profile JSON; empty: the shipped default
  std::optional<double> price_per_gpu_hour;  // USD, for cost per trillion tokens
  std::string yaml_text;       // the scenario as run (after overrides), for reports
};

// `key=value` from the command line, applied to the YAML before it is read (value parsed as YAML).
struct Override {
  std::string key;    // dotted path, e.g. parallel.ep
  std::string value;
};
Override parse_override(const std::string& text);  // InputError naming --set when malformed

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides = {});
Scenario parse_scenario(const std::string& yaml_text, const std::string& source_name,
                        const std::vector<Override>& overrides = {});

std::string to_string(PipelineScheduleKind k);
std::string to_string(AllToAllAlgorithm a);
std::string to_string(NetworkModelKind n);

}  // namespace k3::plan
