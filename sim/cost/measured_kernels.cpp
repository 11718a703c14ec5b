#include "sim/cost/measured_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/statistics.hpp"

namespace k3::cost {

namespace {

// FlashAttention-3 (arXiv:2407.08608) on H100 SXM5, BF16, head dim 128, without causal mask: forward (figure 5)
// 467, 565, 625, 638, 646, 648 TFLOP/s and backward (figure 6) 316, 424, 501, 542, 559, 561 TFLOP/s at sequence
// 512 .. 16K. The backward does 2.5x the forward's FLOPs, so it takes 2.5 x forward rate / backward rate as long.
struct BwdRatioPoint {
  double seq, fwd_tflops, bwd_tflops;
};
constexpr BwdRatioPoint kFa3HeadDim128[] = {{512, 467, 316},   {1024, 565, 424}, {2048, 625, 501},
                                            {4096, 638, 542},  {8192, 646, 559}, {16384, 648, 561}};

// The kernel of a family the database measured most (its main kernel on that GPU): a fixed choice per GPU and
// dtype, never one per op.
std::string main_kernel(const std::vector<const KernelTable*>& tables) {
  std::map<std::string, int> count;
  for (const auto* t : tables) ++count[t->keys.at("kernel_source")];
  std::string best;
  int most = 0;
  for (const auto& [k, n] : count) {
    if (n > most) best = k, most = n;
  }
  return best;
}

// The op's FLOPs at the rate the table's kernel reaches at `point`, its FLOPs there by `flops_at` (the op family's
// own count). Outside the measured range the rate is that of the nearest measured shape (each axis clamped), as the
// table's own rule keeps it for sizes above; below the range the time never falls under the smallest shape's
// latency (kernel_tables.hpp).
template <class FlopsAt>
std::optional<MeasuredTime> at_rate(const KernelTable& t, std::vector<double> point, FlopsAt flops_at, double op_flops) {
  bool below = false, outside = false;
  for (std::size_t a = 0; a < point.size() && a < t.axes.size(); ++a) {
    const auto& v = t.axes[a].values;
    const double clamped = std::clamp(point[a], v.front(), v.back());
    below = below || point[a] < v.front();
    outside = outside || clamped != point[a];
    point[a] = clamped;
  }
  const auto r = t.latency(point);
  const double table_flops = flops_at(point);
  if (!r || table_flops <= 0) return std::nullopt;
  const double latency_s = r->latency_us * 1e-6;
  const double seconds = op_flops * latency_s / table_flops;
  return MeasuredTime{below ? std::max(seconds, latency_s) : seconds, outside || r->extrapolated};
}

}  // namespace

std::optional<MeasuredShare> hbm_stream_share(const KernelTables& tables, double hbm_bytes_per_s) {
  // Up to 16 tokens the activations are under 0.1% of a 256 MiB weight: the kernel's time is its weight stream.
  constexpr double kBf16Bytes = 2, kBeyondL2Bytes = 256.0 * (1 << 20), kMatrixVectorTokens = 16;
  const auto all = tables.all("gemm", {{"gemm_dtype", "bfloat16"}});
  if (all.empty() || hbm_bytes_per_s <= 0) return std::nullopt;
  const KernelTable* t = tables.find("gemm", {{"gemm_dtype", "bfloat16"}, {"kernel_source", main_kernel(all)}});
  if (t == nullptr || t->axes.size() != 3 || t->axes[0].name != "m") return std::nullopt;
  const auto& ns = t->axes[1].values;
  const auto& ks = t->axes[2].values;
  const double m = t->axes[0].values.front();
  if (m > kMatrixVectorTokens) return std::nullopt;
  std::vector<double> shares;
  for (std::size_t i = 0; i < ns.size(); ++i) {
    for (std::size_t j = 0; j < ks.size(); ++j) {
      const double n = ns[i], k = ks[j], us = t->latency_us[i * ks.size() + j];  // the m = smallest block
      if (!(us > 0) || n * k * kBf16Bytes < kBeyondL2Bytes) continue;
      shares.push_back(kBf16Bytes * (n * k + m * k + m * n) / (us * 1e-6) / hbm_bytes_per_s);
    }
  }
  if (shares.empty()) return std::nullopt;
  std::sort(shares.begin(), shares.end());
  const double median = core::quantile_of_sorted(shares, 0.5);
  if (!(median <= 1)) return std::nullopt;
  return MeasuredShare{median, shares.front(), std::min(shares.back(), 1.0),
                       fmt::format("{} BF16 GEMM at m = {:g} ({}, {}; {}): {} shapes with at least 256 MiB of weights "
                                   "stream {:.2f}..{:.2f} TB/s, median {:.2f} TB/s, of the datasheet's {:.2f} TB/s",
                                   tables.device, m, t->source.file, t->keys.at("kernel_source"), tables.origin,
                                   shares.size(), shares.front() * hbm_bytes_per_s / 1e12,
                                   shares.back() * hbm_bytes_per_s / 1e12, median * hbm_bytes_per_s / 1e12,
                                   hbm_bytes_per_s / 1e12)};
}

MeasuredKernels::MeasuredKernels(const KernelTables& tables, bool fine_grained_fp8, core::Provenance& prov)
    : tables_(tables), fine_grained_fp8_(fine_grained_fp8) {
  using core::SourceKind;
  const std::string where = "measured kernel tables of " + tables.gpu + " (" + tables.origin + ")";
  prov.add_exact("kernels.measured.tables", static_cast<double>(tables.tables.size()), "count",
                 SourceKind::kernel_measurement,
                 where + ": SGLang's inference kernels price training ops: dense GEMMs from torch linear (cuBLAS, as "
                         "Megatron and PyTorch trainers), FP8 from DeepGEMM's block-scaled kernel (MXFP8 on Blackwell too: "
                         "DeepGEMM's SM100 kernels take UE8M0 scales, MX's scale format, on the block-scaled tensor-core "
                         "MMA MXFP8 GEMMs run on; its blocks are 1x128 and 128x128, MX's 1x32), expert GEMMs at the "
                         "fused-MoE kernel's FLOP rate at the same tokens per expert, attention from the prefill "
                         "kernels, KDA from chunk_kda; the training libraries (Transformer Engine, cuDNN) are not "
                         "measured here");
  const auto gemm = [&](const char* dtype) -> const KernelTable* {
    const auto all = tables_.all("gemm", {{"gemm_dtype", dtype}});
    return all.empty() ? nullptr : tables_.find("gemm", {{"gemm_dtype", dtype}, {"kernel_source", main_kernel(all)}});
  };
  gemm_bf16_ = gemm("bfloat16");
  gemm_mxfp8_ = gemm("fp8_block");
  gemm_fp8_ = fine_grained_fp8_ ? gemm_mxfp8_ : nullptr;
  gemm_nvfp4_ = gemm("nvfp4");
  const auto moe = [&](const char* dtype) {
    std::vector<MoeShape> out;
    const auto all = tables_.all("moe", {{"moe_dtype", dtype}, {"distribution", "balanced"}, {"moe_ep_size", "1"}});
    const std::string kernel = main_kernel(all);
    for (const auto* t : all) {
      if (t->keys.at("kernel_source") != kernel) continue;
      const double hidden = t->key_number("hidden_size"), ffn = t->key_number("inter_size");
      const double experts = t->key_number("num_experts"), topk = t->key_number("topk");
      out.push_back({t, hidden, ffn, experts, topk, std::log(hidden), std::log(2 * ffn), std::log(ffn), std::log(experts)});
    }
    return out;
  };
  moe_bf16_ = moe("bfloat16");
  moe_fp8_ = moe("fp8_block");
  moe_nvfp4_ = moe("nvfp4");
  const auto attention_tables = [&](const char* dtype, auto& into) {
    const auto all = tables_.all("attention_context", {{"attn_dtype", dtype}, {"kv_cache_dtype", dtype}});
    const std::string kernel = main_kernel(all);
    for (const auto* t : all) {
      if (t->keys.at("kernel_source") != kernel) continue;
      into[{std::stoi(t->keys.at("head_dim")), std::stoi(t->keys.at("window_size")),
            std::stoi(t->keys.at("num_key_value_heads"))}] = t;
    }
  };
  attention_tables("bfloat16", attention_);
  attention_tables("fp8", attention_fp8_);
  const auto kda = tables_.all("kda", {{"kernel_source", "chunk_kda"}, {"phase", "context"}, {"head_k_dim", "128"},
                                       {"head_v_dim", "128"}});
  kda_ = kda.empty() ? nullptr : kda.front();
  bwd_ratio_scale_ = prov.add("attention.bwd_over_fwd_scale", 1.0, 1.0, 1.17, "x", SourceKind::kernel_measurement,
                              "attention backward takes 2.5x the forward's FLOPs at FlashAttention-3's measured "
                              "backward/forward rate on H100 (arXiv:2407.08608 figures 5-6, head dim 128: time ratio "
                              "3.69 at 512 tokens to 2.89 at 16K); the range's top is DeepSeek-V3's own H800 trace "
                              "(shared/calibration/traces: FA3 backward with its pre- and post-processing 4,254 us "
                              "against the forward's 1,237 us at 4K, ratio 3.44, 1.17x the curve's 2.94)");
}

const KernelTable* MeasuredKernels::gemm_table(Precision p) const {
  switch (p) {
    case Precision::bf16: return gemm_bf16_;
    case Precision::fp8: return gemm_fp8_;
    case Precision::nvfp4: return gemm_nvfp4_;
    case Precision::mxfp8: return gemm_mxfp8_;
  }
  return nullptr;
}

std::optional<MeasuredTime> MeasuredKernels::gemm(double m, double n, double k, Precision p) const {
  const KernelTable* t = gemm_table(p);
  if (t == nullptr || m <= 0 || n <= 0 || k <= 0) return std::nullopt;
  const double point[] = {m, n, k};
  const auto r = t->latency(point);
  if (!r) return std::nullopt;
  return MeasuredTime{r->latency_us * 1e-6, r->extrapolated};
}

std::optional<MeasuredTime> MeasuredKernels::grouped_gemm(const model::ExpertGemmShape& s, double flops,
                                                          Precision p) const {
  const std::vector<MoeShape>* shapes = p == Precision::bf16    ? &moe_bf16_
                                        : p == Precision::fp8 || p == Precision::mxfp8 ? &moe_fp8_
                                        : p == Precision::nvfp4 ? &moe_nvfp4_
                                                                : nullptr;
  if (shapes == nullptr || shapes->empty() || s.tokens_per_expert <= 0 || s.experts <= 0 || flops <= 0) return std::nullopt;
  // The nearest measured model shape: the op's [k -> n] against the fused kernel's up [hidden -> 2 x FFN] and down
  // [FFN -> hidden] GEMMs, and its local experts against the table's; the first of equals in file order.
  const double log_k = std::log(s.k), log_n = std::log(s.n), log_e = std::log(s.experts);
  const MoeShape* best = nullptr;
  double best_distance = 0;
  for (const auto& m : *shapes) {
    const double up = std::abs(log_k - m.log_hidden) + std::abs(log_n - m.log_2ffn);
    const double down = std::abs(log_k - m.log_ffn) + std::abs(log_n - m.log_hidden);
    const double distance = std::min(up, down) + std::abs(log_e - m.log_experts);
    if (best == nullptr || distance < best_distance) best = &m, best_distance = distance;
  }
  // EP 1, balanced: every token's top-k experts are local, tokens x top-k / experts tokens each.
  const double tokens = s.tokens_per_expert * best->experts / best->topk;
  const auto table_flops = [&](const std::vector<double>& at) {  // up (2 x FFN wide) and down
    return 2.0 * at[0] * best->topk * 3.0 * best->hidden * best->ffn;
  };
  return at_rate(*best->table, {tokens}, table_flops, flops);
}

double MeasuredKernels::backward_over_forward(double seq) const {
  const auto ratio = [](const BwdRatioPoint& p) { return 2.5 * p.fwd_tflops / p.bwd_tflops; };
  const auto* first = std::begin(kFa3HeadDim128);
  const auto* last = std::end(kFa3HeadDim128) - 1;
  if (seq <= first->seq) return bwd_ratio_scale_ * ratio(*first);
  if (seq >= last->seq) return bwd_ratio_scale_ * ratio(*last);
  const auto* hi = std::find_if(first, last + 1, [&](const BwdRatioPoint& p) { return p.seq >= seq; });
  const auto* lo = hi - 1;
  const double t = std::log(seq / lo->seq) / std::log(hi->seq / lo->seq);
  return bwd_ratio_scale_ * (ratio(*lo) + t * (ratio(*hi) - ratio(*lo)));
}

std::optional<MeasuredTime> MeasuredKernels::attention_forward(const model::AttentionShape& a, double fwd_flops,
                                                              bool fp8) const {
  if (!a.causal || a.chunk > 0 || a.heads <= 0 || a.seq <= 0 || a.sequences <= 0 || fwd_flops <= 0) return std::nullopt;
  const auto& by_shape = fp8 ? attention_fp8_ : attention_;
  if (a.kind == model::AttentionKind::MLA) {
    // MLA's attention core (q/k 192, v 128 in DeepSeek-V3 and K3) at FlashAttention-3's FLOP rate for head dim 128
    // without KV-head sharing, at the op's batch and sequence: DeepSeek-V3's own training trace runs MLA on FA3
    // (flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, ...>>). The database's MLA prefill table is not
    // used for training: it times SGLang's whole MLA attention module (AIConfigurator's collector/sglang README),
    // projections included, which k3sim prices as GEMMs of their own. Multi-head tables are measured at heads = KV
    // heads; the largest such point at or below the op's heads gives the rate.
    for (auto it = by_shape.rbegin(); it != by_shape.rend(); ++it) {
      const auto [head_dim, window, kv] = it->first;
      if (head_dim != 128 || window != 0 || kv > a.heads) continue;
      const auto table_flops = [&](const std::vector<double>& p) {  // batch, sequence, heads; causal, head dim 128
        return 2.0 * p[2] * 256.0 * p[0] * model::attention_pairs(p[1], true, 0, 0);
      };
      if (auto t = at_rate(*it->second, {a.sequences, a.seq, static_cast<double>(kv)}, table_flops, fwd_flops)) return t;
    }
    return std::nullopt;
  }
  if (a.qk_dim != a.v_dim) return std::nullopt;
  const auto it = by_shape.find({a.qk_dim, static_cast<int>(a.window), std::max(1, a.kv_heads)});
  if (it == by_shape.end()) return std::nullopt;
  const auto table_flops = [&](const std::vector<double>& p) {
    return 2.0 * p[2] * 2.0 * a.qk_dim * p[0] * model::attention_pairs(p[1], true, a.window, 0);
  };
  return at_rate(*it->second, {a.sequences, a.seq, static_cast<double>(a.heads)}, table_flops, fwd_flops);
}

std::optional<MeasuredTime> MeasuredKernels::kda_forward(const model::ScanShape& s, double fwd_flops) const {
  if (s.d_k != 128 || s.d_v != 128 || s.heads <= 0 || s.tokens <= 0 || fwd_flops <= 0) return std::nullopt;
  if (kda_ == nullptr) return std::nullopt;
  // One sequence of all the op's tokens; the table's FLOPs by the same count as the op's (model/ops.hpp).
  const double c = s.chunk > 0 ? s.chunk : 64, hd = 128;
  const auto table_flops = [&](const std::vector<double>& p) { return p[0] * p[1] * p[2] * (6 * hd * hd + 3 * c * hd + c * c); };
  return at_rate(*kda_, {1.0, s.tokens, static_cast<double>(s.heads)}, table_flops, fwd_flops);
}

}  // namespace k3::cost
