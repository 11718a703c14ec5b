#include "sim/cost/cost_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.hpp"

namespace k3::cost {

OpCostModel::OpCostModel(DeviceModel device, const cost::CalibrationProfile* profile, Precision gemm_precision,
                         KernelChoice kernels, core::Provenance& prov)
    : device_(std::move(device)), profile_(profile), precision_(gemm_precision), kernels_(kernels),
      defaults_(default_efficiencies(device_.name, kernels.bf16, prov,
                                    kernels.measured ? hbm_stream_share(*kernels.measured, device_.hbm_bytes_per_s)
                                                     : std::nullopt,
                                    kernels.measured != nullptr)) {
  using core::SourceKind;
  const std::string sheet = device_.name + " datasheet (" + device_.source + ")";
  device_.bf16_flops_per_s = prov.add_exact("gpu.bf16_peak", device_.bf16_flops_per_s, "FLOP/s",
                                            SourceKind::datasheet, sheet + ": dense BF16 peak");
  if (device_.fp8_flops_per_s > 0) {
    device_.fp8_flops_per_s = prov.add_exact("gpu.fp8_peak", device_.fp8_flops_per_s, "FLOP/s",
                                             SourceKind::datasheet, sheet + ": dense FP8 peak");
  }
  device_.hbm_bytes_per_s = prov.add_exact("gpu.hbm_bandwidth", device_.hbm_bytes_per_s, "B/s",
                                           SourceKind::datasheet, sheet + ": HBM bandwidth");
  device_.sms = static_cast<int>(prov.add_exact("gpu.sms", device_.sms, "count", SourceKind::datasheet,
                                                sheet + ": streaming multiprocessors"));
  if (profile_ != nullptr) {
    // The spread of the profile's own timings (p10..p90 of repeated launches are typically within a few
    // percent); the rates themselves are the profile's medians.
    profile_scale_ = prov.add("profile.rate_scale", 1.0, 0.95, 1.05, "x", SourceKind::kernel_measurement,
                              "calibration profile measured on " + profile_->device().name + " (" +
                                  profile_->device().backend + ", " + profile_->created_utc() +
                                  "): median rates; +-5% for launch-to-launch spread assumed");
  }
  if (precision_ == Precision::fp8 && device_.fp8_flops_per_s <= 0) precision_ = Precision::bf16;
  if (block_scaled(precision_)) {
    // A block-scaled format has no software fallback worth simulating: refuse rather than run something else.
    if (peak_of(precision_) <= 0) {
      throw core::InputError({"", "precision.gemm", 0},
                             fmt::format("{} has no {} tensor cores", device_.name, display_name(precision_)),
                             "bf16 or fp8 on this GPU, or a GPU type with a " + std::string(to_string(precision_)) +
                                 " peak (k3sim list gpus)");
    }
    const bool mx = precision_ == Precision::mxfp8;
    const double peak = prov.add_exact(mx ? "gpu.mxfp8_peak" : "gpu.nvfp4_peak", peak_of(precision_), "FLOP/s",
                                       SourceKind::datasheet,
                                       sheet + (mx ? ": dense FP8 peak, at which block-scaled MXFP8 runs"
                                                   : ": dense FP4 (NVFP4) peak"));
    (mx ? device_.mxfp8_flops_per_s : device_.nvfp4_flops_per_s) = peak;
    block_scaled_ = block_scaled_gemm_efficiency(precision_, device_.name, prov);
  }
  if (defaults_.fp8_table) {
    fp8_dense_ = fp8_curve(deepgemm_dense_rows());
    fp8_grouped_ = fp8_curve(deepgemm_grouped_rows());
  }
  if (kernels_.measured) measured_.emplace(*kernels_.measured, kernels_.fp8 == Fp8GemmKernels::deepgemm, prov);
  // Memory-bound ops stream at a measured rate where a calibration profile timed elementwise kernels or the kernel
  // tables gave the HBM share (hbm_stream_share); otherwise at the assumed share of the datasheet.
  hbm_measured_ = profile_rate("elementwise", 1.0).has_value() ||
                  prov.entry("hbm.efficiency").kind == SourceKind::kernel_measurement;
}

Fp8EfficiencyCurve OpCostModel::fp8_curve(const std::vector<Fp8GemmMeasurement>& rows) const {
  // Each row's fraction of the peak, divided by this model's tile and wave quantization of the measured
  // shape: what is left is the kernel's rate at that K, to which the op's own quantization is applied. That
  // division can credit the kernel with more than it was ever measured at (the tile model is not the
  // kernel's), so each point is capped at the fastest measured row of its table.
  std::map<double, std::pair<double, int>> by_k;
  double fastest = 0;
  for (const auto& r : rows) {
    const double tflops = r.tflops / (kernels_.fp8 == Fp8GemmKernels::cutlass_3_6 ? r.speedup : 1.0);
    fastest = std::max(fastest, tflops / kH800Fp8PeakTflops);
    auto& [sum, count] = by_k[r.k];
    sum += tflops / kH800Fp8PeakTflops / gemm_shape_efficiency(r.m, r.n, r.groups);
    ++count;
  }
  Fp8EfficiencyCurve curve;
  for (const auto& [k, v] : by_k) {
    curve.points.push_back({k, defaults_.fp8_rate_scale * std::min(fastest, v.first / v.second)});
  }
  return curve;
}

double OpCostModel::peak_of(Precision p) const {
  switch (p) {
    case Precision::bf16: return device_.bf16_flops_per_s;
    case Precision::fp8: return device_.fp8_flops_per_s;
    case Precision::mxfp8: return device_.mxfp8_flops_per_s;
    case Precision::nvfp4: return device_.nvfp4_flops_per_s;
  }
  return device_.bf16_flops_per_s;
}

std::string_view OpCostModel::quantization_label() const {
  switch (precision_) {
    case Precision::bf16: return "BF16 quantization";
    case Precision::fp8: return "FP8 quantization";
    case Precision::mxfp8: return "MXFP8 quantization";
    case Precision::nvfp4: return "NVFP4 quantization";
  }
  return "BF16 quantization";
}

double OpCostModel::fp8_gemm_efficiency(double k, bool grouped) const {
  return (grouped ? fp8_grouped_ : fp8_dense_).at(k);
}

namespace {

// Output rows, output columns and reduction length of each part of a GEMM whose forward is
// [m, k] x [k, n]: the activation gradient is [m, n] x [n, k], the weight gradient [n, m] x [m, k].
struct GemmDims {
  double m, n, k;
};
GemmDims dims_of(const GemmDims& f, OpCostModel::GemmPart part) {
  switch (part) {
    case OpCostModel::GemmPart::fwd: return f;
    case OpCostModel::GemmPart::dgrad: return {f.m, f.k, f.n};
    case OpCostModel::GemmPart::wgrad: return {f.n, f.k, f.m};
  }
  return f;
}

// The forward [m, k] x [k, n] of a GEMM op, m per group, and its number of groups (experts); nullopt for an
// op whose shape is not a GEMM's.
struct GemmForward {
  GemmDims dims;
  int groups = 1;
};
std::optional<GemmForward> forward_of(const model::Op& op) {
  if (const auto* s = std::get_if<model::GemmShape>(&op.shape)) return GemmForward{{s->m, s->n, s->k}, 1};
  if (const auto* e = std::get_if<model::ExpertGemmShape>(&op.shape)) {
    return GemmForward{{e->tokens_per_expert, e->n, e->k}, e->experts};
  }
  return std::nullopt;
}

constexpr double kBf16OutputBytes = 2;  // a weight-gradient GEMM timed alone writes its output in BF16

}  // namespace

double OpCostModel::gemm_shape_efficiency(double m, double n, int groups) const {
  // Tile quantization: partial tiles at the edges do full work; wave quantization: the last wave of
  // tiles leaves SMs idle.
  const double tm = defaults_.tile_m;
  const double tn = defaults_.tile_n;
  const double tiles_m = std::ceil(std::max(m, 1.0) / tm);
  const double tiles_n = std::ceil(std::max(n, 1.0) / tn);
  const double tiles = tiles_m * tiles_n * groups;
  const double padded = tiles_m * tm * tiles_n * tn;
  const double tile_eff = (std::max(m, 1.0) * std::max(n, 1.0)) / padded;
  const double sms = std::max(device_.sms, 1);
  const double waves = std::ceil(tiles / sms);
  // Fewer tiles than SMs: the kernels pick smaller blocks (DeepGEMM's JIT chooses its block sizes per shape) so
  // that every SM works; DeepGEMM's M = 64 rows (9 tiles of 128 x 256 on 132 SMs) run at 1.7 TB/s, which one
  // partial wave could not reach.
  const double wave_eff = tiles < sms ? 1.0 : tiles / (waves * sms);
  return tile_eff * wave_eff;
}

std::optional<double> OpCostModel::profile_rate(const std::string& op_class, double work) const {
  if (profile_ == nullptr || !profile_->has(op_class) || !cost::production_kernel_class(op_class)) return std::nullopt;
  // The profile's own measured peak times its efficiency: what was measured, not a fraction of the
  // datasheet.
  return profile_scale_ * profile_->achieved_rate(op_class, work);
}

core::Seconds OpCostModel::memory_time(core::Bytes bytes) const {
  const double rate = profile_rate("elementwise", bytes).value_or(device_.hbm_bytes_per_s * defaults_.hbm.value);
  return bytes / rate;
}

std::optional<MeasuredTime> OpCostModel::measured_time(const model::Op& op, core::Flops flops, GemmPart part,
                                                       Precision p) const {
  using model::OpKind;
  if (!measured_) return std::nullopt;
  switch (op.kind) {
    case OpKind::DenseGemm:
    case OpKind::Router: {
      const auto f = forward_of(op);
      if (!f) return std::nullopt;
      const auto d = dims_of(f->dims, part);
      auto t = measured_->gemm(d.m, d.n, d.k, p);
      // The router's top-k and sigmoid ride on its GEMM's FLOPs: the GEMM's measured rate prices them too.
      if (t && op.kind == OpKind::Router) t->seconds *= flops / (2.0 * d.m * d.n * d.k);
      return t;
    }
    case OpKind::ExpertGemm: {
      const auto* s = std::get_if<model::ExpertGemmShape>(&op.shape);
      return s ? measured_->grouped_gemm(*s, flops, p) : std::nullopt;
    }
    case OpKind::AttentionCore: {
      const auto* a = std::get_if<model::AttentionShape>(&op.shape);
      if (a == nullptr || kernels_.attention == AttentionKernel::unfused) return std::nullopt;
      // An FP8 forward from the FP8 table; the backward from the BF16 forward's rate (it runs in BF16).
      const bool fp8 = kernels_.attention == AttentionKernel::flash_fp8 && part == GemmPart::fwd;
      auto t = measured_->attention_forward(*a, op.fwd_flops, fp8);
      // Backward: FlashAttention's 2.5x forward FLOPs at the measured backward/forward time ratio.
      if (t && part != GemmPart::fwd) t->seconds *= measured_->backward_over_forward(a->seq) * flops /
                                  (model::kAttentionBackwardOverForwardFlops * op.fwd_flops);
      return t;
    }
    case OpKind::KdaChunkScan: {
      const auto* s = std::get_if<model::ScanShape>(&op.shape);
      if (s == nullptr) return std::nullopt;
      auto t = measured_->kda_forward(*s, op.fwd_flops);
      if (t) t->seconds *= flops / op.fwd_flops;  // backward at the forward's measured FLOP rate
      return t;
    }
    default:
      return std::nullopt;
  }
}

OpCostModel::Priced OpCostModel::compute_time(const model::Op& op, core::Flops flops, GemmPart part) const {
  using model::OpKind;
  if (flops <= 0) return {};
  const bool backward = part != GemmPart::fwd;
  double rate = 0;
  switch (op.kind) {
    case OpKind::DenseGemm:
    case OpKind::Router:
    case OpKind::ExpertGemm: {
      const bool grouped = op.kind == OpKind::ExpertGemm;
      const Precision p = op.keeps_bf16 ? Precision::bf16 : precision_;
      if (profile_ != nullptr) {  // the user's own calibration first: the class name is built only then
        const std::string op_class = std::string(grouped ? "grouped_gemm_" : "gemm_") + std::string(to_string(p));
        if (const auto r = profile_rate(op_class, flops)) return {flops / *r, true, false, false};
      }
      if (const auto t = measured_time(op, flops, part, p)) return {t->seconds, true, t->extrapolated, true};
      double shape_eff = 1.0, k = 0;
      if (const auto f = forward_of(op)) {
        const auto d = dims_of(f->dims, part);
        shape_eff = gemm_shape_efficiency(d.m, d.n, f->groups);
        k = d.k;
      }
      double base = defaults_.gemm_bf16.value;
      if (p == Precision::fp8) base = defaults_.fp8_table && k > 0 ? fp8_gemm_efficiency(k, grouped) : defaults_.gemm_fp8.value;
      // Block-scaled GEMMs: the measured large-GEMM fraction of the format's peak, reduced by the op's tile and wave
      // quantization like BF16 (the scales are applied by the tensor cores, so no K-dependent promotion cost).
      if (block_scaled(p)) base = block_scaled_.value;
      rate = peak_of(p) * base * shape_eff;
      break;
    }
    case OpKind::AttentionCore: {
      if (const auto t = measured_time(op, flops, part, Precision::bf16)) return {t->seconds, true, t->extrapolated, true};
      const double base = backward ? defaults_.attention_bwd.value : defaults_.attention_fwd.value;
      const bool fp8 = kernels_.attention == AttentionKernel::flash_fp8 && !backward && device_.fp8_flops_per_s > 0;
      rate = (fp8 ? device_.fp8_flops_per_s : device_.bf16_flops_per_s) * base;
      break;
    }
    case OpKind::KdaChunkScan:
      if (const auto t = measured_time(op, flops, part, Precision::bf16)) return {t->seconds, true, t->extrapolated, true};
      rate = device_.bf16_flops_per_s * defaults_.kda_scan.value;
      break;
    default:
      // Memory-bound kinds are costed by their bytes only, at an HBM rate that may itself be measured.
      return {0, hbm_measured_, false, false};
  }
  return {flops / rate, false, false, false};
}

std::string_view OpCostModel::category(const model::Op& op) {
  using model::OpKind;
  switch (op.kind) {
    case OpKind::DenseGemm: return op.name.rfind("shared", 0) == 0 ? "shared-expert GEMM" : "dense GEMM";
    case OpKind::ExpertGemm: return "routed-expert GEMM";
    case OpKind::AttentionCore: return "attention core";
    case OpKind::KdaChunkScan: return "KDA scan";
    case OpKind::Router: return "router";
    case OpKind::Norm: return "norms";
    case OpKind::Elementwise: return "elementwise";
    case OpKind::Embedding: return "embedding";
    case OpKind::Communication: return "communication";
  }
  return "other";
}

OpTime OpCostModel::unfused_attention_time(const model::Op& op) const {
  const auto& a = std::get<model::AttentionShape>(op.shape);
  // The batched GEMMs compute the whole seq x seq matrix, masked or not: twice the causal count.
  const double executed = op.fwd_flops * (a.causal ? 2.0 : 1.0);
  const double gemm_rate = device_.bf16_flops_per_s * defaults_.gemm_bf16.value *
                           gemm_shape_efficiency(a.seq, a.seq, std::max(1, a.heads) * static_cast<int>(a.sequences));
  // Score matrix traffic, 2-byte elements: forward writes it (QK^T), the softmax reads and writes it,
  // dropout reads and writes it and stores a 1-byte mask, PV reads it: 6 passes + the mask. The backward
  // pass reads and writes each of these once more: twice the forward traffic.
  // Math and score traffic add up rather than overlap: head-dim-K batched GEMMs measured on A100 take about
  // their math at peak plus their output traffic (pytorch/pytorch#83272: bmm 512 x 1024 x 1024 x 128 FP16,
  // 1.038 ms = 132 TFLOP/s; 0.44 ms of math at 312 TFLOP/s + 0.60 ms writing 1.07 GB at 1.8 TB/s).
  const double elements = a.sequences * a.heads * a.seq * a.seq;
  const double fwd_bytes = elements * (6 * 2.0 + 1.0);
  OpTime t;
  t.fwd = executed / gemm_rate + memory_time(fwd_bytes);
  t.dgrad = 2 * executed / gemm_rate + memory_time(2 * fwd_bytes);
  return t;
}

OpTime OpCostModel::time(const model::Op& op) const {
  OpTime t;
  if (op.kind == model::OpKind::Communication) return t;
  if (op.kind == model::OpKind::AttentionCore && kernels_.attention == AttentionKernel::unfused &&
      std::holds_alternative<model::AttentionShape>(op.shape)) {
    return unfused_attention_time(op);
  }
  const double bytes = op.read_bytes + op.write_bytes;
  const bool fp8_gemm = (op.kind == model::OpKind::DenseGemm || op.kind == model::OpKind::ExpertGemm) &&
                        precision_ == Precision::fp8 && !op.keeps_bf16 && defaults_.gemm_fp8_hbm.value > 0;
  const double mem = fp8_gemm && profile_ == nullptr
                         ? bytes / (device_.hbm_bytes_per_s * defaults_.gemm_fp8_hbm.value)
                         : memory_time(bytes);
  const double floor = defaults_.min_kernel_s;
  // A measured latency already holds the kernel's memory traffic: the roofline's byte time bounds only the rest.
  bool measured = true, any_compute = false;
  const auto part_time = [&](core::Flops flops, GemmPart part, double bytes_time) {
    const Priced c = compute_time(op, flops, part);
    if (flops > 0) {
      any_compute = true;
      measured = measured && c.measured;
      t.extrapolated = t.extrapolated || c.extrapolated;
    }
    return std::max({c.seconds, c.holds_memory ? 0.0 : bytes_time, floor});
  };
  t.fwd = part_time(op.fwd_flops, GemmPart::fwd, mem);
  // Backward reads what forward read and writes gradients of the same size: twice the traffic.
  if (op.dgrad_flops > 0 || op.kind == model::OpKind::Norm || op.kind == model::OpKind::Elementwise) {
    t.dgrad = part_time(op.dgrad_flops, GemmPart::dgrad, op.backward_bytes > 0 ? memory_time(op.backward_bytes) : 2 * mem);
  }
  if (op.wgrad_flops > 0) {
    t.wgrad = std::max(part_time(op.wgrad_flops, GemmPart::wgrad, mem), accumulating_wgrad_floor(op, bytes));
  }
  // An op without FLOPs (a copy, a cast) is its bytes at the HBM rate: measured when that rate is.
  t.measured = any_compute ? measured : hbm_measured_;
  add_quantization(op, t);
  return t;
}

// Weight gradients accumulate over the micro-batches of a step into a buffer of main_grad_bytes per element (FP32
// under BF16 training: Megatron-LM sets accumulate_allreduce_grads_in_fp32 for bf16, arguments.py; DeepSeek-V3
// keeps gradients for batch accumulation in FP32, arXiv:2412.19437 section 3.3). The accumulation is fused into the
// weight-gradient GEMM's epilogue (Megatron-LM's gradient_accumulation_fusion, on unless
// --no-gradient-accumulation-fusion; C read and written with beta = 1), so each element of the weight gradient is
// read and written in that dtype where the GEMM timed alone (a table's row, the roofline's output) wrote it once in
// BF16: (2 x main_grad_bytes - 2) bytes more per element. Tiles' epilogues overlap other tiles' main loops, so the
// traffic bounds the kernel from below (its operands plus the accumulation at the HBM rate) rather than adding to it:
// it binds where a GEMM is memory-bound (few tokens per expert), not where it is compute-bound.
core::Seconds OpCostModel::accumulating_wgrad_floor(const model::Op& op, core::Bytes operand_bytes) const {
  const auto f = forward_of(op);
  if (kernels_.main_grad_bytes <= 0 || !f) return 0;
  const double elements = f->groups * f->dims.n * f->dims.k;
  return memory_time(operand_bytes + elements * (2 * kernels_.main_grad_bytes - kBf16OutputBytes));
}

void OpCostModel::add_quantization(const model::Op& op, OpTime& t) const {
  const auto f = forward_of(op);
  if (precision_ == Precision::bf16 || op.keeps_bf16 || !f) return;
  const double m = f->dims.m * f->groups, n = f->dims.n, k = f->dims.k;
  const auto kernel = [this](double bytes) { return std::max(memory_time(bytes), defaults_.min_kernel_s); };
  if (precision_ == Precision::fp8) {
    // DeepSeek-V3 (arXiv:2412.19437 section 3.5.2) describes the HBM round trips its FP8 GEMMs need: the
    // BF16 input is read, quantized in 1x128 tiles and written back as FP8 before the forward GEMM (3 bytes
    // per element); the output gradient likewise before the activation-gradient GEMM; for the weight
    // gradient both operands are read as FP8, transposed, re-quantized in 128x1 tiles and written (2 bytes
    // per element each). Each is a kernel of its own, costed by its bytes like any memory-bound op.
    if (op.fwd_flops > 0 && !op.input_arrives_fp8) t.fwd_quant = kernel(3 * m * k);
    if (op.dgrad_flops > 0) t.dgrad_quant = kernel(3 * m * n);
    if (op.wgrad_flops > 0) t.wgrad_quant = kernel(2 * m * n + 2 * m * k);
    return;
  }
  // MXFP8 and NVFP4 scale 1-D blocks along each GEMM's reduction dimension, so a tensor that one GEMM reduces
  // along its rows and another along its columns needs two quantized copies, and "one cannot derive one from the
  // other. Both must be quantized independently from the full-precision data" (NVIDIA Transformer Engine user
  // guide, MXFP8, "Handling transposes"). Transformer Engine writes both copies from one read of the BF16 tensor:
  // the input x [m, k] rowwise for the forward GEMM and columnwise for the weight gradient, the output gradient
  // dy [m, n] rowwise for the activation gradient and columnwise for the weight gradient. Each kernel reads 2 bytes
  // per element and writes `q` per copy (block_scaled_bytes_per_element); the weight gradient reads the copies
  // made before it. An input that arrives quantized (FP8 dispatch) skips the forward copy; its columnwise copy is
  // then re-quantized from the arrival (read and write q per element, as the FP8 transposes above).
  const double q = block_scaled_bytes_per_element(precision_);
  const bool wgrad = op.wgrad_flops > 0;
  if (op.fwd_flops > 0 && !op.input_arrives_fp8) {
    t.fwd_quant = kernel((2 + q * (wgrad ? 2 : 1)) * m * k);
  } else if (op.fwd_flops > 0 && wgrad) {
    t.wgrad_quant = kernel(2 * q * m * k);
  }
  const double dy_bytes = (2 + q * ((op.dgrad_flops > 0 ? 1 : 0) + (wgrad ? 1 : 0))) * m * n;
  if (op.dgrad_flops > 0) {
    t.dgrad_quant = kernel(dy_bytes);
  } else if (wgrad) {
    t.wgrad_quant += kernel(dy_bytes);
  }
}

std::vector<std::string> OpCostModel::notes() const {
  std::vector<std::string> out;
  const auto& d = defaults_;
  if (device_.fp8_flops_per_s > 0 && d.fp8_table) {
    const bool older = kernels_.fp8 == Fp8GemmKernels::cutlass_3_6;
    out.push_back(fmt::format(
        "FP8 GEMMs (fine-grained scaling) at {} rates by reduction length K, {:.0f}% of {:.0f} TFLOP/s at K = {:.0f} "
        "to {:.0f}% at K = {:.0f} (dense) before shape quantization, never above the fastest measured row: {}{}; "
        "the output head and the MoE gating stay in BF16 (DeepSeek-V3, arXiv:2412.19437 section 3.3.1)",
        older ? "CUTLASS 3.6-based (DeepSeek 2024)" : "DeepGEMM", 100 * fp8_dense_.points.front().efficiency,
        device_.fp8_flops_per_s / 1e12, fp8_dense_.points.front().work, 100 * fp8_dense_.points.back().efficiency,
        fp8_dense_.points.back().work, kDeepGemmTableSource,
        older ? " (DeepGEMM's rate divided by its speedup over those kernels)" : ""));
  }
  if (block_scaled(precision_)) {
    out.push_back(fmt::format(
        "{} GEMMs at {:.0f}% of {:.0f} TFLOP/s before shape quantization ({}); inputs and output gradients quantized "
        "rowwise and columnwise from BF16 by separate memory-bound kernels (\"{}\", {:.4g} bytes per element and "
        "copy); the output head and the MoE gating stay in BF16",
        display_name(precision_), 100 * block_scaled_.value, peak_of(precision_) / 1e12, block_scaled_.source,
        quantization_label(), block_scaled_bytes_per_element(precision_)));
  }
  if (measured_) {
    out.push_back(fmt::format(
        "GEMMs, expert GEMMs, attention and KDA priced from kernel latencies measured on {} ({}; "
        "kernels/profiles/aiconfigurator/): each GEMM part at its own shape, expert GEMMs at the fused-MoE kernel's "
        "rate at the same tokens per expert, attention at the prefill kernel's rate with the backward at "
        "FlashAttention-3's measured backward/forward ratio, KDA from chunk_kda; outside a table's range the rate of "
        "its nearest measured shape; the roofline below prices what no table covers",
        measured_->tables().gpu, measured_->tables().origin));
  }
  out.push_back(fmt::format("GEMM tiles {}x{} over {} SMs for tile and wave quantization: NVIDIA Matrix "
                            "Multiplication Background User's Guide, sections 3.1-3.2",
                            d.tile_m, d.tile_n, device_.sms));
  if (kernels_.main_grad_bytes > 0) {
    out.push_back(fmt::format("weight gradients accumulate over micro-batches into {} main gradients inside the "
                              "weight-gradient GEMM (Megatron-LM's gradient_accumulation_fusion): its operands and "
                              "{:.0f} B more per weight-gradient element than a BF16 output, at the HBM rate, bound "
                              "the GEMM from below",
                              kernels_.main_grad_bytes >= 4 ? "FP32" : "BF16", 2 * kernels_.main_grad_bytes - kBf16OutputBytes));
  }
  if (kernels_.attention == AttentionKernel::flash_fp8) {
    out.push_back("attention forward in FP8 (FlashAttention-3's FP8 forward, arXiv:2407.08608 section 3.3): from the "
                  "GPU's measured FP8 prefill-attention table where it has one, else at the FP8 peak times the "
                  "attention efficiency; the backward in BF16 (FlashAttention-3 has no FP8 backward)");
  }
  if (kernels_.attention == AttentionKernel::unfused) {
    out.push_back("attention unfused (Megatron-LM 2021, SC21 section 4.2): batched GEMMs at the BF16 GEMM "
                  "efficiency over the full seq x seq scores, plus 6 passes of 2-byte scores and a 1-byte dropout "
                  "mask through HBM forward, twice that backward");
  }
  if (profile_ != nullptr) {
    std::vector<std::string> used, ignored;
    for (const auto& c : profile_->op_classes()) (cost::production_kernel_class(c) ? used : ignored).push_back(c);
    out.push_back(fmt::format("calibration profile from {} ({}): its measured rates (efficiency x its own measured "
                              "peak) replace the defaults for {}{}", profile_->device().name,
                              profile_->device().backend, fmt::join(used, ", "),
                              ignored.empty() ? std::string()
                                              : fmt::format("; not used, measured with kernels that are not the "
                                                            "production algorithm: {}", fmt::join(ignored, ", "))));
  }
  return out;
}

}  // namespace k3::cost
