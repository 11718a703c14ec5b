#pragma once
// Op times from the measured kernel tables of the GPU (kernel_tables.hpp), and which table prices which training op.
// The tables are SGLang's inference kernels; training runs other libraries for some ops, so each mapping below is a
// stated assumption with a range in the provenance registry (`kernels.measured.*`):
// - dense GEMMs (and the router's): the BF16 table is torch's linear (cuBLAS), the library Megatron and PyTorch
//   trainers call; FP8 with fine-grained scales is DeepGEMM's 1x128-block kernel, the kernel DeepSeek-V3 trained
//   with; NVFP4 is FlashInfer's CuTe-DSL kernel; MXFP8 (Blackwell) is DeepGEMM's block-scaled FP8 kernel too: on
//   SM100 it takes UE8M0 scales, MX's format, on the block-scaled tensor-core MMA (deepseek-ai/DeepGEMM README), in
//   1x128 blocks where MX has 1x32 (the fused-MoE FP8-block table prices MXFP8 expert GEMMs likewise). The forward
//   looks up (tokens, out, in), the activation gradient (tokens, in, out) and the weight gradient (out, in,
//   tokens): each part by its own shape.
// - routed-expert (grouped) GEMMs: the fused-MoE tables measure both expert GEMMs and the activation of every
//   local expert at once. An expert GEMM runs at the FLOP rate the fused kernel reaches at the same tokens per
//   expert, on the measured model shape nearest in (hidden, FFN width, experts) by log distance, at EP 1 and a
//   balanced load (an uneven load reaches the op as fewer or more tokens per expert).
// - attention forward: from the prefill attention table of the GPU's main kernel (FlashAttention-3 on Hopper) as an
//   achieved FLOP rate at the op's batch and sequence, so an op whose FLOPs differ from a full causal sequence
//   (context-parallel chunks) keeps its own FLOPs: attention with equal q/k and v head dims at its head dim, KV heads,
//   heads and window; MLA (q/k 192, v 128) at the head-dim-128 multi-head rate (measured_kernels.cpp says why not
//   the database's MLA table).
// - attention backward: 2.5x the forward FLOPs (FlashAttention's count), at a time ratio to the forward measured by
//   FlashAttention-3 on H100 (arXiv:2407.08608, figures 5 and 6, head dim 128, BF16).
// - KDA chunkwise scan: K3's chunk_kda kernel at the op's tokens (one sequence) and heads; backward at the forward's
//   measured FLOP rate.
// - memory-bound ops and FP8 quantization (casts to 1x128 or 128x128 tiles, norms, activations): by the bytes they
//   move at the HBM share the GPU's own GEMM tables stream on matrix-vector rows (hbm_stream_share). The database's
//   `quantize` tables do not price them: `scale_matrix` times eager PyTorch's per-tensor static cast (a division, a
//   clamp, a cast and a copy, four kernels: about 410 GB/s on H200 however large), and `compute_scale` is a
//   difference of two timings that is 0 in 1,622 of its 1,628 H200 rows (AIConfigurator's
//   collector/sglang/collect_computescale.py); neither is the fused tile cast a training step runs.
// Every look-up that finds no table, or a shape whose box is not measured, returns nothing: the caller uses its
// roofline and counts the op as not measured.
#include <map>
#include <optional>
#include <tuple>
#include <vector>
#include <string>

#include "core/provenance.hpp"
#include "model/ops.hpp"
#include "sim/cost/kernel_tables.hpp"
#include "sim/cost/precision.hpp"

namespace k3::cost {

// A share of a datasheet figure measured on the GPU itself, with the spread of the measurements.
struct MeasuredShare {
  double nominal = 0, low = 0, high = 0;
  std::string source;
};

// HBM bandwidth as the GPU's kernels stream it, for memory-bound ops (norms, activations, casts, optimizer
// updates): the BF16 GEMM table at its smallest M (at most 16 tokens: a matrix-vector product that reads each weight once)
// over weights of at least 256 MiB (beyond every table GPU's L2), bytes read and written over the measured time,
// as a share of the datasheet `hbm_bytes_per_s`. The median of those rows is the figure (a streaming kernel's
// typical rate, not its best shape), their min..max the range; none without such rows or above the datasheet.
std::optional<MeasuredShare> hbm_stream_share(const KernelTables& tables, double hbm_bytes_per_s);

struct MeasuredTime {
  double seconds = 0;
  bool extrapolated = false;  // outside a table's measured range (kernel_tables.hpp's rule)
};

class MeasuredKernels {
 public:
  // Registers the mappings' assumptions in `prov`. `fine_grained_fp8`: FP8 GEMMs are DeepGEMM-style block-scaled
  // ones (the only FP8 table); other FP8 kernels are left to the caller.
  MeasuredKernels(const KernelTables& tables, bool fine_grained_fp8, core::Provenance& prov);

  // Dense GEMM [m, k] x [k, n] in `p`.
  std::optional<MeasuredTime> gemm(double m, double n, double k, Precision p) const;
  // `flops` of a routed-expert GEMM part at `shape` (per GPU: local experts, tokens per expert).
  std::optional<MeasuredTime> grouped_gemm(const model::ExpertGemmShape& shape, double flops, Precision p) const;
  // `fwd_flops` of flash attention at `shape`; the backward is this times backward_over_forward(shape.seq) times
  // the op's backward-to-forward FLOP ratio over 2.5.
  // `fp8`: from the FP8 (E4M3 q, k, v) table of the GPU's main prefill kernel.
  std::optional<MeasuredTime> attention_forward(const model::AttentionShape& shape, double fwd_flops,
                                                bool fp8 = false) const;
  double backward_over_forward(double seq) const;  // time ratio at FlashAttention's 2.5x FLOPs
  std::optional<MeasuredTime> kda_forward(const model::ScanShape& shape, double fwd_flops) const;

  const KernelTables& tables() const { return tables_; }

 private:
  // A fused-MoE table with its shape, logs precomputed for the nearest-shape search.
  struct MoeShape {
    const KernelTable* table;
    double hidden, ffn, experts, topk;
    double log_hidden, log_2ffn, log_ffn, log_experts;
  };
  const KernelTable* gemm_table(Precision p) const;

  const KernelTables& tables_;
  bool fine_grained_fp8_;
  double bwd_ratio_scale_ = 1.0;  // the backward ratio's range (provenance)
  // Resolved once: every op of every rank looks up a table, and a by-key search costs more than the look-up.
  const KernelTable* gemm_bf16_ = nullptr;
  const KernelTable* gemm_fp8_ = nullptr;
  const KernelTable* gemm_nvfp4_ = nullptr;
  const KernelTable* gemm_mxfp8_ = nullptr;  // DeepGEMM's block-scaled FP8 (the mapping is stated in the .cpp)
  std::vector<MoeShape> moe_bf16_, moe_fp8_, moe_nvfp4_;
  std::map<std::tuple<int, int, int>, const KernelTable*> attention_;      // (head dim, window, KV heads)
  std::map<std::tuple<int, int, int>, const KernelTable*> attention_fp8_;  // the same, FP8 q, k, v and cache
  const KernelTable* kda_ = nullptr;
};

}  // namespace k3::cost
