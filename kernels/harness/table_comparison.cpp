#include "kernels/harness/table_comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/provenance.hpp"
#include "sim/cost/measured_kernels.hpp"

namespace k3::kernels {

namespace {

using nlohmann::json;

double num(const json& shape, const char* key) { return shape.at(key).get<double>(); }

const cost::KernelTable* main_table(const cost::KernelTables& tables, const char* op_class,
                                    const std::map<std::string, std::string>& subset) {
  const auto all = tables.all(op_class, subset);
  return all.empty() ? nullptr : all.front();
}

}  // namespace

std::vector<KernelComparison> compare_with_tables(const cost::CalibrationProfile& profile, const cost::KernelTables& tables) {
  core::Provenance prov;  // the mapping's entries are not reported here
  const cost::MeasuredKernels measured(tables, true, prov);
  // cuBLAS BF16 against torch linear (cuBLAS); cuBLASLt FP8 with per-tensor scales against SGLang's per-tensor
  // scaled FP8 kernel (the block-scaled table is another algorithm).
  const auto* bf16 = main_table(tables, "gemm", {{"gemm_dtype", "bfloat16"}});
  const auto* fp8 = main_table(tables, "gemm", {{"gemm_dtype", "fp8"}});
  const auto* kda = main_table(tables, "kda", {{"kernel_source", "chunk_kda"}, {"phase", "context"}});
  const auto* mla = main_table(tables, "mla_context", {{"mla_dtype", "bfloat16"}, {"kv_cache_dtype", "bfloat16"}});
  std::vector<KernelComparison> out;
  const auto add = [&](std::string cls, std::string shape, const cost::KernelTable* t, std::vector<double> point,
                       double k3sim_s) {
    if (t == nullptr) return;
    const auto r = t->latency(point);
    if (!r) return;
    out.push_back({std::move(cls), std::move(shape), t->label() + (r->extrapolated ? " (extrapolated)" : ""), k3sim_s,
                   r->latency_us * 1e-6});
  };
  for (const auto& m : profile.measurements()) {
    const std::string op = m.at("op").get<std::string>();
    const json& s = m.at("shape");
    const double t = m.at("median_s").get<double>();
    if (op == "gemm") {
      const bool is_fp8 = s.at("dtype").get<std::string>() == "fp8";
      const std::string projection = s.contains("projection") ? s.at("projection").get<std::string>() + " " : "";
      add(is_fp8 ? "gemm fp8" : "gemm bf16",
          fmt::format("{}m {:.0f}, n {:.0f}, k {:.0f}", projection, num(s, "m"), num(s, "n"), num(s, "k")),
          is_fp8 ? fp8 : bf16, {num(s, "m"), num(s, "n"), num(s, "k")}, t);
    } else if (op == "kda_forward") {
      add("KDA forward", fmt::format("{:.0f} tokens, {:.0f} heads x {:.0f}", num(s, "tokens"), num(s, "heads"), num(s, "head_dim")),
          kda, {1, num(s, "tokens"), num(s, "heads")}, t);
    } else if (op == "mla_prefill") {
      add("MLA prefill", fmt::format("{:.0f} tokens, {:.0f} heads, q/k {:.0f}, v {:.0f}", num(s, "tokens"), num(s, "heads"),
                                     num(s, "qk_dim"), num(s, "v_dim")),
          mla, {1, num(s, "tokens"), num(s, "heads")}, t);
    } else if (op == "grouped_gemm") {
      const model::ExpertGemmShape shape{static_cast<int>(num(s, "experts")), num(s, "tokens_per_expert"), num(s, "n"), num(s, "k")};
      const auto r = measured.grouped_gemm(shape, m.at("flops").get<double>(), cost::Precision::bf16);
      if (!r) continue;
      out.push_back({"grouped GEMM bf16",
                     fmt::format("{} experts x {:.0f} tokens, n {:.0f}, k {:.0f}", shape.experts, shape.tokens_per_expert,
                                 shape.n, shape.k),
                     std::string("fused-MoE rate at the same tokens per expert (nearest shape)") +
                         (r->extrapolated ? " (extrapolated)" : ""),
                     t, r->seconds});
    }
  }
  return out;
}

std::string format_comparison(const std::vector<KernelComparison>& rows) {
  std::string out = "| op class | shape | k3sim | table | k3sim / table | table row |\n|---|---|---|---|---|---|\n";
  std::map<std::string, std::vector<double>> ratios;
  for (const auto& r : rows) {
    out += fmt::format("| {} | {} | {:.4g} ms | {:.4g} ms | {:.2f}x | {} |\n", r.op_class, r.shape, r.k3sim_s * 1e3,
                       r.table_s * 1e3, r.ratio(), r.table_row);
    ratios[r.op_class].push_back(r.ratio());
  }
  out += "\n| op class | rows | median k3sim / table | range |\n|---|---|---|---|\n";
  for (auto& [cls, v] : ratios) {
    std::sort(v.begin(), v.end());
    out += fmt::format("| {} | {} | {:.2f}x | {:.2f}x .. {:.2f}x |\n", cls, v.size(), v[v.size() / 2], v.front(), v.back());
  }
  return out;
}

}  // namespace k3::kernels
