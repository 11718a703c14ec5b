// The cost model's shipped defaults, each registered in the provenance registry with its plausible range
// and source, and read back from it (so an override or a band sample moves them).
#include <string>

#include "core/error.hpp"
#include "sim/cost/cost_model.hpp"

namespace k3::cost {

namespace {

using core::SourceKind;

constexpr const char* kMamf =
    "stas00/ml-engineering, compute/accelerator/README.md, 'Maximum Achievable Matmul FLOPS comparison table'";

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Registers a fraction and returns it with its source, as the cost model keeps it.
SourcedFraction fraction(core::Provenance& prov, const char* id, double nominal, double low, double high,
                         SourceKind kind, std::string source) {
  const double v = prov.add(id, nominal, low, high, "fraction", kind, source);
  return {v, std::move(source)};
}

}  // namespace

DefaultEfficiencies default_efficiencies(const std::string& gpu, Bf16GemmKernels bf16_kernels,
                                         core::Provenance& prov, const std::optional<MeasuredShare>& hbm_measured,
                                         bool kernel_tables) {
  DefaultEfficiencies d;
  // With kernel tables these compute rates are the roofline's, left for the ops no table covers: said in each
  // figure's source, so that the registry tells a measured price from a fallback.
  const auto compute = [&](std::string source) {
    return kernel_tables ? "roofline, not measured: prices only the ops this GPU's kernel tables do not cover (run "
                           "gives the measured share); " + source
                         : source;
  };
  // Ranges: FlashAttention-2's own measured spread where the paper gives one; otherwise an assumption
  // stated in the source, wide enough to hold every published figure we know of for the kind of kernel.
  d.attention_fwd = fraction(prov, "attention.fwd.efficiency", 0.60, 0.50, 0.73, SourceKind::kernel_measurement,
                             compute("FlashAttention-2 (arXiv:2307.08691): forward reaches 50-73% of peak on A100; "
                                     "60% taken, the paper's 50-73% as the range"));
  d.attention_bwd = fraction(prov, "attention.bwd.efficiency", 0.50, 0.40, 0.63, SourceKind::assumption,
                             compute("FlashAttention-2 (arXiv:2307.08691): backward utilisation below forward; 5/6 of "
                                     "the forward figure assumed, range 0.40-0.63 assumed"));
  d.kda_scan = fraction(prov, "kda.efficiency", 0.35, 0.20, 0.50, SourceKind::assumption,
                        compute("assumption: chunkwise delta-rule kernels are bound by small per-chunk matmuls and "
                                "the inter-chunk recurrence; no published utilisation (range 0.20-0.50 assumed)"));
  if (hbm_measured) {
    d.hbm = fraction(prov, "hbm.efficiency", hbm_measured->nominal, hbm_measured->low, hbm_measured->high,
                     SourceKind::kernel_measurement, hbm_measured->source);
  } else {
    d.hbm = fraction(prov, "hbm.efficiency", 0.90, 0.80, 0.93, SourceKind::assumption,
                     "sustained device-to-device copies reach about 90% of datasheet HBM bandwidth (e.g. H100 SXM "
                     "3.0 of 3.35 TB/s); range 0.80-0.93 assumed; replace with `k3sim calibrate` (probe hbm_copy)");
  }
  d.min_kernel_source = "assumption: a kernel launched in a training step occupies the GPU at least 3 us "
                        "(launch latency and tail), range 2-5 us assumed";
  d.min_kernel_s = prov.add("kernel.min_time", 3e-6, 2e-6, 5e-6, "s", SourceKind::assumption, d.min_kernel_source);
  if (bf16_kernels == Bf16GemmKernels::cuda11 && !starts_with(gpu, "A100")) {
    throw core::InputError({"", "bf16_gemm_kernels", 0}, "no CUDA 11 GEMM measurement for " + gpu,
                           "cuda12 (or cuda11 on A100)");
  }
  // The range of a measured large-GEMM fraction: -10% for shapes the library's heuristics serve worse than
  // the table's best shape, +3% for run-to-run and clock spread (assumed).
  const auto gemm = [&](double nominal, std::string source) {
    return fraction(prov, "gemm.bf16.efficiency", nominal, 0.90 * nominal, std::min(1.0, 1.03 * nominal),
                    SourceKind::kernel_measurement, compute(source + "; range -10%/+3% assumed"));
  };
  if (starts_with(gpu, "A100")) {
    if (bf16_kernels == Bf16GemmKernels::cuda11) {
      // Chosen by its software stack, not by the validation error (issue 16): of the A100 CUDA 11 GEMM
      // measurements found, the one on the stack nearest the 2020-21 one (CUDA 11.3; the other,
      // mli/transformers-benchmarks' 230 TFLOP/s, ran on CUDA 11.7 in 2022).
      d.gemm_bf16 = gemm(263.0 / 312.0,
                         "haswelliris/sc_ad A1/readme.md (Fire-Flyer AI-HPC, SC24 artifact): DGX A100 SXM4 40GB square "
                         "FP16 GEMM 263 of 312 TFLOP/s (A1/bench_gemm.py, N 2048-16384, PyTorch 1.12, CUDA 11.3)");
    } else {
      d.gemm_bf16 = gemm(267.9 / 312.0, std::string(kMamf) + ": A100 SXM 267.9 of 312 TFLOP/s BF16 (CUDA 12.1)");
    }
    d.gemm_fp8 = {0.0, "A100 has no FP8 tensor cores"};
    d.tile_m = 128;
    d.tile_n = 128;
    return d;
  }
  const bool hopper = starts_with(gpu, "H100") || starts_with(gpu, "H800") || starts_with(gpu, "H200") ||
                      starts_with(gpu, "GH200");
  d.gemm_bf16 = gemm(792.1 / 989.0, std::string(kMamf) + (hopper ? ": H100 SXM 792.1 of 989 TFLOP/s BF16 (CUDA "
                                                                    "12.1); H800 and H200 share the GH100 die and clocks"
                                                                  : ": no measurement for " + gpu +
                                                                        "; the H100 SXM fraction (792.1 of 989 "
                                                                        "TFLOP/s) assumed"));
  // Read only for an FP8 GEMM op without a GEMM shape; shaped ones follow the measured table below.
  d.gemm_fp8 = fraction(prov, "gemm.fp8.efficiency", 1550.0 / 1979.0, 0.85 * 1550.0 / 1979.0, 1550.0 / 1979.0,
                        SourceKind::kernel_measurement,
                        compute(hopper ? "deepseek-ai/DeepGEMM README: FP8 GEMMs up to 1550 TFLOP/s on H800 (2025-04-18), of "
                                 "1979 TFLOP/s dense peak; down to 0.85 of it assumed"
                               : "no FP8 measurement for " + gpu + "; DeepGEMM's H800 fractions of the FP8 peak "
                                 "assumed (best case 1550 of 1979 TFLOP/s); down to 0.85 of it assumed"));
  d.fp8_table = true;
  // DeepGEMM's memory-bound rows (README, H800, the M = 64 and 128 shapes of DeepSeek-V3's projections): 1688, 1509,
  // 2221 and 2277 GB/s at (M, N, K) = (64, 2112, 7168), (128, 2112, 7168), (128, 4096, 7168), (128, 7168, 2048), of
  // 3.35 TB/s; their mean, and the slowest and fastest row as the range.
  d.gemm_fp8_hbm = fraction(prov, "gemm.fp8.memory_bound_hbm_fraction", 1923.75 / 3350.0, 1509.0 / 3350.0,
                            2277.0 / 3350.0, SourceKind::kernel_measurement,
                            std::string("deepseek-ai/DeepGEMM README (H800): small-M FP8 GEMMs at 1509-2277 GB/s (M = 64 "
                                        "and 128 with N, K of DeepSeek-V3's projections) of 3350 GB/s, mean 1924 GB/s") +
                                (hopper ? "" : "; measured on H800, the same fraction of " + gpu + "'s HBM assumed"));
  d.fp8_rate_scale = prov.add("gemm.fp8.rate_scale", 1.0, 0.85, 1.0, "x", SourceKind::kernel_measurement,
                              std::string(kDeepGemmTableSource) +
                                  "; the measured rates as they are (1.0), down to 0.85 of them assumed for other "
                                  "software stacks, shapes between the table's rows and clock throttling");
  d.tile_m = 128;
  d.tile_n = 256;
  return d;
}

// Measured on HGX B200 (1,000 W); other Blackwell parts (GB200 at 1,200 W, GB300) take the same fraction of their own
// peak, an assumption stated in the source. The range follows the BF16 one: -10% for shapes the kernels serve worse
// than the measured square ones, +3% for run-to-run and clock spread (assumed).
SourcedFraction block_scaled_gemm_efficiency(Precision precision, const std::string& gpu, core::Provenance& prov) {
  const bool b200 = gpu == "B200";
  const std::string other = b200 ? "" : "; measured on B200, the same fraction of the " + gpu + " peak assumed";
  if (precision == Precision::mxfp8) {
    // flashinfer-ai/flashinfer#2464 (mm_mxfp8, CUTLASS, autotuned, B200, 2026-02): 3200.9 TFLOP/s at
    // M = N = 8192, K = 4096 and 3099.7 at 16384^3, of the 4,500 TFLOP/s dense FP8 peak; the faster taken.
    return fraction(prov, "gemm.mxfp8.efficiency", 3200.9 / 4500.0, 0.90 * 3200.9 / 4500.0, 1.03 * 3200.9 / 4500.0,
                    SourceKind::kernel_measurement,
                    "flashinfer-ai/flashinfer#2464: MXFP8 GEMM (CUTLASS) on B200, 3200.9 TFLOP/s at 8192x8192x4096 "
                    "(3099.7 at 16384^3) of 4500 TFLOP/s dense" + other + "; range -10%/+3% assumed");
  }
  if (precision == Precision::nvfp4) {
    // pytorch/ao#2427 (cuBLAS NVFP4 torch._scaled_mm, B200, 2025-06, bench_matmul.py --recipe nvfp4): 5.50e15 at
    // M = K = N = 6144 and 5.37e15 at 8192^3, of the 9.0e15 dense FP4 peak; the faster taken.
    return fraction(prov, "gemm.nvfp4.efficiency", 5.50e15 / 9.00e15, 0.90 * 5.50e15 / 9.00e15, 1.03 * 5.50e15 / 9.00e15,
                    SourceKind::kernel_measurement,
                    "pytorch/ao#2427: NVFP4 GEMM (cuBLAS torch._scaled_mm) on B200, 5.50 PFLOP/s at 6144^3 (5.37 at "
                    "8192^3) of 9.0 PFLOP/s dense" + other + "; range -10%/+3% assumed");
  }
  throw core::InternalError("block_scaled_gemm_efficiency: " + std::string(to_string(precision)) +
                            " is not a block-scaled format");
}

double comm_sm_slowdown(int gpu_sms, int held_sms, const std::string& source, core::Provenance& prov) {
  if (held_sms <= 0 || gpu_sms <= held_sms) return 1;
  const double proportional = static_cast<double>(gpu_sms) / (gpu_sms - held_sms);
  return prov.add("compute.comm_sm_slowdown", proportional, 1 + 0.5 * (proportional - 1), proportional, "x",
                  SourceKind::assumption, source);
}

}  // namespace k3::cost
