#pragma once
// Turns a model operator into GPU time: a roofline of the GPU's datasheet peaks times efficiencies.
//
// Efficiencies come from a calibration profile when one is given (`k3sim run --profile`: the profile's
// curve for the op class at the op's work size), else from the shipped defaults below, each with its
// source: the largest achievable GEMM rate measured per GPU generation, reduced by tile and wave
// quantization for the op's shape (NVIDIA, "Matrix Multiplication Background User's Guide", sections 3.1
// and 3.2), and a sustained fraction of HBM bandwidth for memory-bound ops.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cost/calibration_profile.hpp"
#include "model/ops.hpp"
#include "core/provenance.hpp"
#include "core/units.hpp"
#include "sim/cost/attention_kernel.hpp"
#include "sim/cost/fp8_gemm_rates.hpp"
#include "sim/cost/kernel_tables.hpp"
#include "sim/cost/measured_kernels.hpp"
#include "sim/cost/precision.hpp"

namespace k3::cost {

struct DeviceModel {
  std::string name;                 // e.g. "H800-SXM"
  double bf16_flops_per_s = 0;      // dense datasheet peak
  double fp8_flops_per_s = 0;       // 0 when the GPU has no FP8 tensor cores
  double hbm_bytes_per_s = 0;
  int sms = 0;
  std::string source;               // where the figures come from
  double mxfp8_flops_per_s = 0;     // block-scaled formats: 0 when the GPU's tensor cores have none
  double nvfp4_flops_per_s = 0;
};

// One default efficiency with where it comes from.
struct SourcedFraction {
  double value = 0;
  std::string source;
};

// Datasheet-efficiency defaults for one GPU generation.
struct DefaultEfficiencies {
  SourcedFraction gemm_bf16;        // best large-GEMM rate / peak
  SourcedFraction gemm_fp8;         // best large-GEMM rate / peak (quoted; GEMMs use the measured table)
  bool fp8_table = false;           // FP8 GEMMs follow the measured DeepGEMM rates by K (fp8_gemm_rates.hpp)
  SourcedFraction attention_fwd;    // flash attention forward / BF16 peak
  SourcedFraction attention_bwd;
  SourcedFraction kda_scan;         // chunkwise delta-rule kernels / BF16 peak
  SourcedFraction hbm;              // sustained copy bandwidth / datasheet
  // HBM bandwidth an FP8 GEMM kernel reaches where its bytes bind (small M: decode, small experts) / datasheet;
  // 0 where no such measurement exists (GEMMs then stream at `hbm`).
  SourcedFraction gemm_fp8_hbm;
  int tile_m = 128, tile_n = 128;   // output tile of the typical large-GEMM kernel
  double fp8_rate_scale = 1.0;      // multiplies the measured FP8 table (its uncertainty)
  double min_kernel_s = 0;          // a launched kernel takes at least this long
  std::string min_kernel_source;
};

// The BF16 GEMM library generation a run used: its large-GEMM efficiency differs by software stack, so each
// value is backed by a measurement on that stack. cuda12: the MAMF table (CUDA 12.1); cuda11: a CUDA 11
// measurement, available for A100 only (InputError at `bf16_gemm_kernels` otherwise).
enum class Bf16GemmKernels { cuda12, cuda11 };

// Registers the defaults for `gpu_name` in `prov` (default_efficiencies.cpp) and returns them as read back.
DefaultEfficiencies default_efficiencies(const std::string& gpu_name, Bf16GemmKernels bf16_kernels,
                                         core::Provenance& prov,
                                         const std::optional<MeasuredShare>& hbm_measured = {},
                                         bool kernel_tables = false);
// The large-GEMM efficiency of a block-scaled format (mxfp8, nvfp4) on `gpu_name`, registered in `prov` only when a
// run uses that format (default_efficiencies.cpp).
SourcedFraction block_scaled_gemm_efficiency(Precision precision, const std::string& gpu_name, core::Provenance& prov);

// How much slower compute runs beside a communication kernel holding `held_sms` of the GPU's `gpu_sms` SMs: in
// proportion to the SMs it leaves, half of that slowdown as the low end (memory-bound kernels lose less than their
// share of SMs), registered as compute.comm_sm_slowdown with `source`; 1 (nothing registered) when no SMs are held
// or the kernel would hold them all (default_efficiencies.cpp).
double comm_sm_slowdown(int gpu_sms, int held_sms, const std::string& source, core::Provenance& prov);


// The kernels a run used where their speed depends on the software generation.
struct KernelChoice {
  AttentionKernel attention = AttentionKernel::flash;
  Fp8GemmKernels fp8 = Fp8GemmKernels::deepgemm;
  Bf16GemmKernels bf16 = Bf16GemmKernels::cuda12;
  // Kernel latencies measured on this GPU type (measured_kernels.hpp); null: every op by the roofline.
  std::shared_ptr<const KernelTables> measured;
  // Bytes per element of the buffer weight gradients accumulate into across micro-batches (4: FP32, 2: BF16;
  // precision.gradient_reduce); 0: the GEMM's output is the gradient, no accumulation traffic.
  double main_grad_bytes = 0;
};

struct OpTime {
  core::Seconds fwd = 0, dgrad = 0, wgrad = 0;
  // FP8, MXFP8 and NVFP4 GEMMs: the quantization kernels each part needs besides the GEMM itself (memory-bound,
  // see OpCostModel::add_quantization); zero for everything else.
  core::Seconds fwd_quant = 0, dgrad_quant = 0, wgrad_quant = 0;
  // The compute parts were priced from measured kernel latencies (a table or a calibration profile), not by the
  // roofline (an op without FLOPs: its bytes moved at a measured HBM rate); `extrapolated`: some look-up lay outside its table's measured range.
  bool measured = false;
  bool extrapolated = false;
};

class OpCostModel {
 public:
  // `profile` may be null (defaults). GEMMs run at `gemm_precision`; attention and scans stay in BF16. The
  // device's peaks, the defaults and the profile's rates are registered in `prov` and read back from it.
  // MXFP8 or NVFP4 on a GPU without that format throws core::InputError at key precision.gemm (FP8 on a GPU
  // without FP8 runs in BF16, as before).
  OpCostModel(DeviceModel device, const cost::CalibrationProfile* profile, Precision gemm_precision,
              KernelChoice kernels, core::Provenance& prov);

  // Time of `op` on one GPU for its forward, activation-gradient and weight-gradient parts.
  OpTime time(const model::Op& op) const;
  // Breakdown category of an op ("expert GEMM", "dense GEMM", "attention", "KDA scan", "router",
  // "memory-bound", ...).
  static std::string_view category(const model::Op& op);  // a literal: static storage

  const DeviceModel& device() const { return device_; }
  // The precision the linear layers run at: FP8 only when asked for and the GPU has FP8 tensor cores.
  Precision gemm_precision() const { return precision_; }
  // The breakdown label of the quantization kernels: "FP8 quantization", "MXFP8 quantization", ...
  std::string_view quantization_label() const;  // a literal: static storage
  const DefaultEfficiencies& defaults() const { return defaults_; }
  // What the numbers alone do not say (tiles, the FP8 table's span, unfused attention, the profile), for
  // the report's assumptions section; the numbers themselves are listed from the provenance registry.
  std::vector<std::string> notes() const;
  // Fraction of peak a GEMM of this shape reaches under the defaults (tile and wave quantization).
  double gemm_shape_efficiency(double m, double n, int groups = 1) const;
  // Fraction of the FP8 peak of a GEMM reducing over `k` before shape quantization (the measured table;
  // 0 when the defaults have none).
  double fp8_gemm_efficiency(double k, bool grouped) const;

  enum class GemmPart { fwd, dgrad, wgrad };

  const MeasuredKernels* measured() const { return measured_ ? &*measured_ : nullptr; }
  // The least time of a weight-gradient GEMM that accumulates into the main-gradient buffer
  // (KernelChoice::main_grad_bytes): its operands and the accumulation's traffic at the HBM rate.
  core::Seconds accumulating_wgrad_floor(const model::Op& op, core::Bytes operand_bytes) const;
  // Memory-bound kernels (norms, casts, the quantization kernels of OpTime::*_quant) stream at a measured HBM rate.
  bool memory_rate_measured() const { return hbm_measured_; }

 private:
  struct Priced {
    core::Seconds seconds = 0;
    bool measured = false;         // from a calibration profile or a kernel table
    bool extrapolated = false;
    bool holds_memory = false;     // a measured latency (a table's): the kernel's bytes are already in it
  };
  Priced compute_time(const model::Op& op, core::Flops flops, GemmPart part) const;
  std::optional<MeasuredTime> measured_time(const model::Op& op, core::Flops flops, GemmPart part, Precision p) const;
  core::Seconds memory_time(core::Bytes bytes) const;
  OpTime unfused_attention_time(const model::Op& op) const;
  void add_quantization(const model::Op& op, OpTime& t) const;
  double peak_of(Precision p) const;
  Fp8EfficiencyCurve fp8_curve(const std::vector<Fp8GemmMeasurement>& rows) const;
  // The profile's achieved rate (FLOP/s or B/s) for the class at `work`, when the profile measured it.
  std::optional<double> profile_rate(const std::string& op_class, double work) const;

  DeviceModel device_;
  const cost::CalibrationProfile* profile_;
  Precision precision_;
  KernelChoice kernels_;
  DefaultEfficiencies defaults_;
  SourcedFraction block_scaled_;  // MXFP8 or NVFP4 large-GEMM efficiency when the run uses one
  Fp8EfficiencyCurve fp8_dense_, fp8_grouped_;
  double profile_scale_ = 1.0;  // the profile's rates x this (its measurement spread, from the registry)
  std::optional<MeasuredKernels> measured_;
  bool hbm_measured_ = false;  // memory_time's rate is a measurement (profile or kernel tables), not an assumption
};

}  // namespace k3::cost
