#include "sim/serve/ratio_search.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/parallel_for.hpp"

namespace k3::serve {

RatioSearch search_prefill_decode_ratio(const model::ModelSpec& model, const topo::Topology& topology,
                                        const cost::CalibrationProfile* profile, const ServeSpec& spec, int threads) {
  const auto& d = spec.deployment;
  if (d.kind != DeploymentKind::disaggregated || d.prefill_instances != 1 || d.decode_instances != 1)
    throw core::InputError({spec.source, "deployment", 0}, "the ratio search splits one prefill and one decode instance",
                           "kind: disaggregated with one instance of each");
  const int total = d.prefill.nodes + d.decode.nodes;
  // Attention-DP ranks per node stay as written (a rank's TP does not change with the split).
  const double prefill_dp_per_node = static_cast<double>(d.prefill.attention_dp) / d.prefill.nodes;
  const double decode_dp_per_node = static_cast<double>(d.decode.attention_dp) / d.decode.nodes;
  RatioSearch out;
  out.points.resize(static_cast<std::size_t>(total - 1));
  core::parallel_for(out.points.size(), threads, [&](std::size_t i) {
    RatioPoint& p = out.points[i];
    p.prefill_nodes = static_cast<int>(i) + 1;
    p.decode_nodes = total - p.prefill_nodes;
    ServeSpec s = spec;
    s.deployment.prefill.nodes = p.prefill_nodes;
    s.deployment.decode.nodes = p.decode_nodes;
    s.deployment.prefill.attention_dp = std::max(1, static_cast<int>(prefill_dp_per_node * p.prefill_nodes));
    s.deployment.decode.attention_dp = std::max(1, static_cast<int>(decode_dp_per_node * p.decode_nodes));
    try {
      p.result = simulate_serving(model, topology, profile, s);
    } catch (const core::InputError& e) {
      p.fits = false;
      p.why = e.problem();
    }
  });
  // Of splits with equal goodput, the one furthest inside the SLO: the smallest of the larger of P99 TTFT / SLO
  // and P99 TPOT / SLO.
  const auto worst = [&spec](const ServeResult& r) {
    return std::max(r.ttft.p99 / spec.slo.ttft_s, r.tpot.p99 / spec.slo.tpot_s);
  };
  for (std::size_t i = 0; i < out.points.size(); ++i) {
    const auto& p = out.points[i];
    if (!p.fits) continue;
    if (out.best < 0) {
      out.best = static_cast<int>(i);
      continue;
    }
    const auto& b = out.points[static_cast<std::size_t>(out.best)].result;
    if (p.result.goodput_requests_per_s > b.goodput_requests_per_s ||
        (p.result.goodput_requests_per_s == b.goodput_requests_per_s && worst(p.result) < worst(b)))
      out.best = static_cast<int>(i);
  }
  return out;
}

}  // namespace k3::serve
