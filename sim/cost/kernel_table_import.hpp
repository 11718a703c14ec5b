#pragma once
// Imports AIConfigurator's published kernel database (CSV, one file per table, with MANIFEST.csv naming each file's
// constant columns; shared/calibration/aiconfigurator/README.md) into k3sim's compact kernel tables for one GPU.
//
// Families and what is kept of each (the rest of the file is left out, and the selection is written into the
// table's source):
// - gemm: every kernel and dtype, over m, n, k, at m = a power of two (the database also has m = 2^i + 1 and
//   multiples of 16, which tile quantization separates; the powers of two span 1 to 32,768);
// - moe (fused MoE: both GEMMs and the activation of every local expert), the `moe_perf.csv` file: every kernel,
//   BF16, FP8 block-scaled and NVFP4, balanced and power-law 1.2 token distributions, MoE TP 1, over the token
//   count, one table per model shape (hidden, intermediate, top-k, experts, EP);
// - kda (K3's KDA kernels, for Kimi-K3 shapes): the context (prefill/forward) kernels over batch, sequence length
//   and heads;
// - attention_context (prefill/forward attention): every kernel, dtype, KV dtype, head dim, window and GQA group
//   (heads per KV head) over batch, sequence length and heads;
// - mla_context: every kernel, dtype and KV dtype over batch, sequence length and heads per GPU;
// - nccl: every collective and dtype over GPUs and message size (elements);
// - quantize: the FP8 scale kernels over m and k;
// - deepep_normal_dispatch / deepep_normal_combine: DeepEP's normal-mode kernels inside one node, per model shape
//   (hidden, top-k, experts), over SMs and tokens per rank (4,096 and more), transmit time in microseconds.
// Rows with a latency of 0 are the collector's unmeasured configurations: dropped and counted. A missing column,
// a cell that is not a number, or a negative latency is a core::InputError naming the file, line and column.
#include <memory>
#include <string>

#include "sim/cost/kernel_tables.hpp"

namespace k3::cost {

// `dir` holds MANIFEST.csv and one folder per GPU; `gpu` is a k3sim GPU type ("H200-SXM") or the database's
// folder name ("h200_sxm"). core::InputError for an unknown GPU, a missing folder or a malformed file.
KernelTables import_aiconfigurator(const std::string& dir, const std::string& gpu);

// The database's folder for a k3sim GPU type, "" when the database has none.
std::string aiconfigurator_folder(const std::string& gpu);

// The path of the shipped tables of a k3sim GPU type (kernels/profiles/aiconfigurator/<folder>.json), "" when none
// ship for it.
std::string shipped_kernel_tables(const std::string& gpu);

// The shipped tables that price ops on a k3sim GPU type, loaded once per process and shared (they are read-only):
// its own, or for the H800-SXM the H100-SXM's (the same 132 SMs, clocks and HBM3 at 3.35 TB/s by NVIDIA's
// datasheets; only NVLink differs, which no kernel table measures); null when none ship.
std::shared_ptr<const KernelTables> shipped_kernel_tables_of(const std::string& gpu);

}  // namespace k3::cost
