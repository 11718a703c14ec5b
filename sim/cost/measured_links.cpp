#include "sim/cost/measured_links.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/cost/kernel_table_import.hpp"

namespace k3::cost {
namespace {

constexpr double kHalfBytes = 2;                // nccl_dtype "half": message_size is in elements
constexpr double kLatencyBoundElements = 4096;  // 8 KiB of half: NCCL's small-message (LL) regime, flat in size
constexpr int kHopsPerRingStep = 2;             // GPU -> NVSwitch -> GPU

const KernelTable* nccl_table(const KernelTables& tables, const char* op) {
  const KernelTable* t = tables.find("nccl", {{"nccl_dtype", "half"}, {"op_name", op}});
  if (t == nullptr || t->axes.size() != 2 || t->axes[0].name != "num_gpus" || t->axes[1].name != "message_size")
    return nullptr;
  return t;
}

double measured_us(const KernelTable& t, double gpus, double elements) {
  const std::array<double, 2> point{gpus, elements};
  const auto l = t.latency(point);
  return l && !l->extrapolated ? l->latency_us : std::numeric_limits<double>::quiet_NaN();
}

// Bus bandwidth (B/s) at the largest measured GPU count and message.
double top_bus_bandwidth(const KernelTable& t) {
  const double n = t.axes[0].values.back(), elements = t.axes[1].values.back();
  return (n - 1) / n * elements * kHalfBytes / (measured_us(t, n, elements) * 1e-6);
}

// Seconds per ring step: the least-squares slope over (n - 1) of each GPU count's fastest latency-bound row.
double ring_step_latency_s(const KernelTable& t) {
  std::vector<std::pair<double, double>> points;  // (steps, seconds)
  for (const double n : t.axes[0].values) {
    double best = std::numeric_limits<double>::infinity();
    for (const double e : t.axes[1].values) {
      if (e > kLatencyBoundElements) break;
      const double us = measured_us(t, n, e);
      if (std::isfinite(us)) best = std::min(best, us);
    }
    if (std::isfinite(best)) points.emplace_back(n - 1, best * 1e-6);
  }
  if (points.size() < 2) return 0;
  double sx = 0, sy = 0;
  for (const auto& [x, y] : points) sx += x, sy += y;
  const double mx = sx / points.size(), my = sy / points.size();
  double sxy = 0, sxx = 0;
  for (const auto& [x, y] : points) sxy += (x - mx) * (y - my), sxx += (x - mx) * (x - mx);
  return sxx > 0 ? std::max(0.0, sxy / sxx) : 0;
}

// GPUs in the node AIConfigurator's DeepEP collector ran on (collector/wideep/sglang/collect_deepep_normal.py:
// "full node: 4 on GB200, 8 on B200/H200"; a GB300 compute tray also holds 4).
double deepep_collector_ranks(const std::string& gpu) { return gpu == "GB200-B200" || gpu == "GB300-B300" ? 4 : 8; }

// Probability that a token's top-k of E experts, drawn uniformly, has one on a given GPU of R (E/R experts each).
double reaches_gpu(double experts, double topk, double ranks) {
  const double elsewhere = experts - experts / ranks;
  double none_here = 1;
  for (int i = 0; i < static_cast<int>(topk); ++i) none_here *= std::max(0.0, elsewhere - i) / (experts - i);
  return 1 - none_here;
}

constexpr double kFp8BytesPerElement = 1 + 4.0 / 128;  // FP8 value and an FP32 scale per 128 (DeepEP's dispatch)
constexpr double kBf16BytesPerElement = 2;

}  // namespace

std::optional<net::MeasuredLinkRate> deepep_copy_rate(const KernelTables& tables, const topo::Topology& topology,
                                                      int sms) {
  if (tables.gpu != topology.gpu_type().name) return std::nullopt;
  const double line = topology.line_rate(topo::LinkClass::nvlink);
  if (line <= 0) return std::nullopt;
  const double ranks = deepep_collector_ranks(tables.gpu);
  std::vector<double> rates;
  double tokens_at = 0, sms_at = 0;
  std::string file;
  for (const auto& [op, bytes_per_element] : {std::pair{"deepep_normal_dispatch", kFp8BytesPerElement},
                                              std::pair{"deepep_normal_combine", kBf16BytesPerElement}}) {
    for (const KernelTable* t : tables.all(op, {{"node_num", "1"}})) {
      if (t->axes.size() != 2 || t->axes[1].name != "num_token") continue;
      const auto& sm_axis = t->axes[0].values;
      sms_at = std::clamp(static_cast<double>(sms), sm_axis.front(), sm_axis.back());
      tokens_at = t->axes[1].values.back();
      const std::array<double, 2> point{sms_at, tokens_at};
      const auto l = t->latency(point);
      if (!l || l->latency_us <= 0) continue;
      const double received = ranks * tokens_at *
                              reaches_gpu(t->key_number("num_experts"), t->key_number("num_topk"), ranks);
      const double wire_bytes = received * t->key_number("hidden_size") * bytes_per_element * (ranks - 1) / ranks;
      rates.push_back(wire_bytes / (l->latency_us * 1e-6) / line);
      file = t->source.file;
    }
  }
  if (rates.empty()) return std::nullopt;
  std::sort(rates.begin(), rates.end());
  net::MeasuredLinkRate m;
  m.fraction = rates[rates.size() / 2];
  m.low = rates.front();
  m.high = rates.back();
  if (!(m.fraction > 0 && m.high <= 1)) return std::nullopt;
  m.source = fmt::format(
      "DeepEP normal mode measured on {} inside one node of {:.0f} GPUs ({}; {}): dispatch (FP8) and combine (BF16) "
      "of {} model shapes at {:.0f} tokens per rank and {:.0f} SMs, wire bytes (tokens received x (R-1)/R) per second "
      "of {:.0f} GB/s NVLink per direction: median {:.3f}, range {:.3f}..{:.3f} (sim/cost/measured_links.hpp)",
      tables.device, ranks, file, tables.origin, rates.size() / 2, tokens_at, sms_at, line / 1e9, m.fraction, m.low, m.high);
  return m;
}

std::optional<net::MeasuredLinkRate> shipped_deepep_copy_rate(const topo::Topology& topology, int sms) {
  const auto tables = shipped_kernel_tables_of(topology.gpu_type().name);
  return tables ? deepep_copy_rate(*tables, topology, sms) : std::nullopt;
}

net::MeasuredLinkRates nccl_link_rates(const KernelTables& tables, const topo::Topology& topology) {
  net::MeasuredLinkRates out{};
  if (tables.gpu != topology.gpu_type().name) return out;
  const double line = topology.line_rate(topo::LinkClass::nvlink);
  const KernelTable* gather = nccl_table(tables, "all_gather");
  const KernelTable* scatter = nccl_table(tables, "reduce_scatter");
  if (line <= 0 || gather == nullptr || scatter == nullptr) return out;
  const double ag = top_bus_bandwidth(*gather) / line, rs = top_bus_bandwidth(*scatter) / line;
  const double fraction = (ag + rs) / 2;
  if (!(fraction > 0 && fraction <= 1)) return out;
  double low = std::min(ag, rs), high = std::max(ag, rs);
  if (const KernelTable* a2a = nccl_table(tables, "alltoall")) {
    const double x = top_bus_bandwidth(*a2a) / line;
    if (std::isfinite(x)) low = std::min(low, x), high = std::max(high, x);
  }
  net::MeasuredLinkRate m;
  m.fraction = fraction;
  m.low = low;
  m.high = std::min(high, 1.0);
  const double hop_ag = ring_step_latency_s(*gather) / kHopsPerRingStep;
  const double hop_rs = ring_step_latency_s(*scatter) / kHopsPerRingStep;
  if (hop_ag > 0 && hop_rs > 0) {
    m.hop_latency_s = (hop_ag + hop_rs) / 2;
    m.hop_latency_low_s = std::min(hop_ag, hop_rs);
    m.hop_latency_high_s = std::max(hop_ag, hop_rs);
  }
  const double n = gather->axes[0].values.back();
  m.source = fmt::format(
      "NCCL measured on {} ({}, {}; {}): all-gather and reduce-scatter bus bandwidth {:.0f} and {:.0f} GB/s on {:.0f} "
      "GPUs at {:.0f} MiB, of {:.0f} GB/s NVLink per direction (range with all-to-all); per hop half the slope of "
      "latency-bound time over ring steps (sim/cost/measured_links.hpp)",
      tables.device, gather->source.file, gather->source.framework, tables.origin, ag * line / 1e9, rs * line / 1e9,
      n, gather->axes[1].values.back() * kHalfBytes / (1 << 20), line / 1e9);
  out[static_cast<std::size_t>(topo::LinkClass::nvlink)] = m;
  return out;
}

net::MeasuredLinkRates shipped_nccl_link_rates(const topo::Topology& topology) {
  const auto tables = shipped_kernel_tables_of(topology.gpu_type().name);
  return tables ? nccl_link_rates(*tables, topology) : net::MeasuredLinkRates{};
}

}  // namespace k3::cost
