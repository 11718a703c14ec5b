#pragma once
// Everything that shapes one training step besides the model and the cluster: the typed settings a
// scenario resolves into (sim/input), and all that the step simulation reads of it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "model/memory.hpp"
#include "sim/cost/attention_kernel.hpp"
#include "sim/cost/fp8_gemm_rates.hpp"
#include "sim/net/network_registry.hpp"
#include "sim/parallel/gpu_speed.hpp"
#include "sim/parallel/parallel_layout.hpp"
#include "sim/workload/workload_spec.hpp"

namespace k3::train {

struct OptimizerSpec {
  model::Optimizer kind = model::Optimizer::AdamW;
  int newton_schulz_iterations = 5;
  double moment_bytes = 4;  // optimizer.moment_dtype: fp32 (4) or bf16 (2, as DeepSeek-V3 keeps AdamW's moments)
  // optimizer.per_head_attention: Muon orthogonalises each attention head's block of a projection on its
  // own (K3: "the Attention weights have been changed to a Per-Head form", ../shared/seeds/001).
  bool per_head_attention = false;
  // optimizer.offload_fraction: the share of each rank's optimizer state (fp32 master weights and moments) kept in
  // host memory, its update run by the CPU (Megatron-Core's --optimizer-cpu-offload with
  // --optimizer-offload-fraction, HybridDeviceOptimizer): fp32 gradients down and BF16 weights up the host link,
  // the update at the host's DRAM bandwidth, the three pipelined over parameter groups and beside the GPU's share.
  double offload_fraction = 0;
};

// Which GPUs' collectives an EP all-to-all contends with (symmetry_check.hpp): `block`, the simulated block's
// own groups only (the symmetry shortcut); `fabric`, every block of the job at once; `auto`, the shortcut
// unless the check finds the two more than 2% apart.
enum class NetworkScope { automatic, block, fabric };

struct StepSpec {
  std::string source;          // file the settings came from, named in errors
  std::string name;            // what the result is labelled with
  std::string yaml_text;       // the settings as written (the scenario after overrides), carried into reports
  std::uint64_t seed = 1;
  parallel::ParallelLayout parallel;
  parallel::BatchSpec batch;
  workload::PrecisionSpec precision;
  workload::CommunicationSpec communication;
  workload::ExpertLoadSpec expert_load;
  model::RecomputePolicy recompute;
  workload::HostSpec host;
  parallel::GpuSpeedSpec gpu_speed;  // per-GPU compute speeds (gpu_speed.hpp); none: every GPU at the tables' speed
  OptimizerSpec optimizer;
  const net::NetworkModelEntry* network = &net::default_network_model();  // never null
  NetworkScope network_scope = NetworkScope::automatic;
  // attention_kernel: flash (default), unfused (Megatron-LM 2021) or fp8 (FlashAttention-3's FP8 forward).
  cost::AttentionKernel attention_kernel = cost::AttentionKernel::flash;
  bool roofline_kernels = false;   // kernel_tables: roofline (datasheet peaks x efficiencies) instead of measured
  cost::Fp8GemmKernels fp8_gemm_kernels = cost::Fp8GemmKernels::deepgemm;  // deepgemm or cutlass-3.6
  bool bf16_gemm_cuda11 = false;  // bf16_gemm_kernels: cuda12 (default) or cuda11
  int bf16_gemm_kernels_line = 0;  // its YAML line, for the error when the GPU has no CUDA 11 measurement
  std::optional<double> price_per_gpu_hour;  // USD, for cost per trillion tokens
  // Provenance entries moved off their registered value (by id, inside the entry's range): one sample of the
  // uncertainty band, or a tornado end (step_band.hpp). Empty for a plain run.
  std::map<std::string, double, std::less<>> assumption_overrides;
};

}  // namespace k3::train
