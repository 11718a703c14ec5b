#pragma once
// What one serving run measured, over the requests that arrived inside the measurement window
// [warmup, duration): latencies, throughput, goodput under the SLO, batch sizes and KV use.
#include <optional>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "sim/serve/iteration_cost.hpp"
#include "sim/serve/kv_capacity.hpp"

namespace k3::serve {

struct LatencyStats {
  core::Seconds mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};
// Linear interpolation between order statistics (numpy's default); zeros for an empty sample.
LatencyStats latency_stats(std::vector<double> values);

struct KvSample {
  core::Seconds time_s = 0;
  double utilisation = 0;  // reserved KV pages / pages of all decode ranks
};

// At most `intervals` samples over [0, span_s): the peak of each interval, so a short spike stays visible.
std::vector<KvSample> peak_per_interval(const std::vector<KvSample>& samples, core::Seconds span_s,
                                        std::size_t intervals);

struct PhaseSummary {
  std::string phase;              // "prefill", "decode" or "mixed"
  long iterations = 0;
  core::Seconds mean_iteration_s = 0;
  double mean_tokens_per_rank = 0;       // per iteration: prefill tokens, or decode sequences
  IterationTime mean_breakdown;          // per iteration
};

struct ServeResult {
  std::string name, model, topology, deployment;
  int gpus = 0, nodes = 0, prefill_nodes = 0, decode_nodes = 0;
  core::Seconds window_s = 0;            // the measurement window
  core::Seconds simulated_s = 0;         // until the last request finished
  long requests = 0, measured = 0;
  double arrival_rate_per_s = 0;         // measured requests / window
  // Throughput over the window: prompt tokens prefilled (prefix-cache hits included) and tokens generated.
  double input_tokens_per_s = 0, output_tokens_per_s = 0;
  double input_tokens_per_s_per_node = 0, output_tokens_per_s_per_node = 0;  // over all nodes
  // Per node of the phase that does the work (disaggregated): what SGLang's and DeepSeek's figures quote.
  double input_tokens_per_s_per_prefill_node = 0, output_tokens_per_s_per_decode_node = 0;
  // TTFT: arrival to the first token as the client gets it, from the decode side where the deployment is
  // disaggregated; decode_wait: its part after the prefill (the KV transfer, waiting for decode KV space or a batch
  // slot; zero colocated); TPOT: per output token after the first, over the decode iterations that ran the request.
  LatencyStats ttft, tpot, decode_wait, e2e;
  double slo_ttft_s = 0, slo_tpot_s = 0;
  double goodput_requests_per_s = 0;     // measured requests meeting both SLOs, per second of window
  double slo_attainment = 0;             // their share of the measured requests
  // Little's law check over the whole run: time-average requests in the system, and arrival rate x mean
  // latency (the two agree when every request's time in the system was counted once).
  double mean_in_system = 0, rate_times_latency = 0;
  double mean_decode_batch_per_rank = 0;  // time-weighted over decode iterations
  double peak_kv_utilisation = 0;
  std::vector<KvSample> kv;              // at most 200 points, the peak of each interval
  std::vector<PhaseSummary> phases;
  RankKvCapacity prefill_kv, decode_kv;
  double tokens_per_decode_step = 1;     // 1 + the expected accepted MTP drafts
  std::optional<double> usd_per_million_output_tokens;
  std::size_t distinct_iteration_shapes = 0;  // memoised iteration costs
};

}  // namespace k3::serve
