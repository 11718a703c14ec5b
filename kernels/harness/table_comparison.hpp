#pragma once
// k3sim's own kernels, as a calibration run timed them, against the measured kernel tables' rows for the same
// shapes (`k3sim profile compare`): per op class, the shape, k3sim's time, the table's, and their ratio. The
// tables are production kernels (cuBLAS through torch, FlashAttention-3, SGLang's chunk_kda and fused MoE), so a
// ratio far from 1 says how far k3sim's kernel is from production, not that the table is off.
#include <string>
#include <vector>

#include "sim/cost/calibration_profile.hpp"
#include "sim/cost/kernel_tables.hpp"

namespace k3::kernels {

struct KernelComparison {
  std::string op_class;    // "gemm bf16", "gemm fp8", "grouped GEMM bf16", "KDA forward", "MLA prefill"
  std::string shape;       // in words
  std::string table_row;   // which table and key, and whether the look-up left the measured range
  double k3sim_s = 0;      // the calibration's median
  double table_s = 0;
  double ratio() const { return table_s > 0 ? k3sim_s / table_s : 0; }
};

// Rows for every run of `profile` that a table of `tables` covers; runs without a table are left out.
std::vector<KernelComparison> compare_with_tables(const cost::CalibrationProfile& profile, const cost::KernelTables& tables);
std::string format_comparison(const std::vector<KernelComparison>& rows);  // a Markdown table with a summary per class

}  // namespace k3::kernels
