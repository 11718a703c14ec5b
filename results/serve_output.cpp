#include "results/serve_output.hpp"

#include <fmt/format.h>

#include "core/quantity.hpp"

namespace k3::results {

namespace {

nlohmann::json stats_json(const serve::LatencyStats& s) {
  return {{"mean_s", s.mean}, {"p50_s", s.p50}, {"p90_s", s.p90}, {"p99_s", s.p99}, {"max_s", s.max}};
}

nlohmann::json breakdown_json(const serve::IterationTime& t) {
  return {{"total_s", t.total}, {"attention_s", t.attention}, {"routed_experts_s", t.experts},
          {"other_compute_s", t.other_compute}, {"communication_s", t.communication},
          {"host_weights_s", t.host_weights}};
}

nlohmann::json kv_json(const serve::RankKvCapacity& k) {
  return {{"hbm_bytes_per_gpu", k.hbm_bytes_per_gpu}, {"weight_bytes_per_gpu", k.weight_bytes_per_gpu},
          {"offloaded_weight_bytes_per_gpu", k.offloaded_bytes_per_gpu},
          {"reserve_bytes_per_gpu", k.reserve_bytes_per_gpu}, {"free_bytes_per_gpu", k.free_bytes_per_gpu},
          {"cache_bytes_per_token_per_gpu", k.cache_bytes_per_token_per_gpu},
          {"state_bytes_per_sequence_per_gpu", k.state_bytes_per_sequence_per_gpu}, {"page_tokens", k.page_tokens},
          {"pages_per_gpu", k.pages}};
}

// A latency in the unit that keeps it short: "53.70 ms", "23.883 s".
std::string latency(double s) { return core::format_seconds(s); }

}  // namespace

nlohmann::json serve_to_json(const serve::ServeResult& r) {
  nlohmann::json j;
  j["name"] = r.name;
  j["model"] = r.model;
  j["topology"] = r.topology;
  j["deployment"] = {{"kind", r.deployment}, {"gpus", r.gpus}, {"nodes", r.nodes},
                     {"prefill_nodes", r.prefill_nodes}, {"decode_nodes", r.decode_nodes}};
  j["window_s"] = r.window_s;
  j["simulated_s"] = r.simulated_s;
  j["requests"] = r.requests;
  j["measured_requests"] = r.measured;
  j["arrival_rate_per_s"] = r.arrival_rate_per_s;
  j["throughput"] = {{"input_tokens_per_s", r.input_tokens_per_s},
                     {"output_tokens_per_s", r.output_tokens_per_s},
                     {"input_tokens_per_s_per_node", r.input_tokens_per_s_per_node},
                     {"output_tokens_per_s_per_node", r.output_tokens_per_s_per_node},
                     {"input_tokens_per_s_per_gpu", r.input_tokens_per_s / r.gpus},
                     {"output_tokens_per_s_per_gpu", r.output_tokens_per_s / r.gpus},
                     {"input_tokens_per_s_per_prefill_node", r.input_tokens_per_s_per_prefill_node},
                     {"output_tokens_per_s_per_decode_node", r.output_tokens_per_s_per_decode_node}};
  j["ttft"] = stats_json(r.ttft);
  j["tpot"] = stats_json(r.tpot);
  j["decode_wait"] = stats_json(r.decode_wait);
  j["e2e_latency"] = stats_json(r.e2e);
  j["slo"] = {{"ttft_s", r.slo_ttft_s}, {"tpot_s", r.slo_tpot_s}};
  j["goodput_requests_per_s"] = r.goodput_requests_per_s;
  j["slo_attainment"] = r.slo_attainment;
  j["littles_law"] = {{"mean_in_system", r.mean_in_system}, {"rate_times_mean_latency", r.rate_times_latency}};
  j["mean_decode_batch_per_rank"] = r.mean_decode_batch_per_rank;
  j["tokens_per_decode_step"] = r.tokens_per_decode_step;
  j["peak_kv_utilisation"] = r.peak_kv_utilisation;
  nlohmann::json kv = nlohmann::json::array();
  for (const auto& s : r.kv) kv.push_back({{"time_s", s.time_s}, {"utilisation", s.utilisation}});
  j["kv_utilisation"] = kv;
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& p : r.phases)
    phases.push_back({{"phase", p.phase}, {"iterations", p.iterations}, {"mean_iteration_s", p.mean_iteration_s},
                      {"mean_work_per_rank", p.mean_tokens_per_rank}, {"mean_breakdown", breakdown_json(p.mean_breakdown)}});
  j["phases"] = phases;
  j["kv_capacity"] = {{"prefill", kv_json(r.prefill_kv)}, {"decode", kv_json(r.decode_kv)}};
  if (r.usd_per_million_output_tokens) j["usd_per_million_output_tokens"] = *r.usd_per_million_output_tokens;
  j["distinct_iteration_shapes"] = r.distinct_iteration_shapes;
  return j;
}

std::string serve_to_text(const serve::ServeResult& r) {
  std::string s;
  auto line = [&s](const std::string& l) { s += l + "\n"; };
  line(r.deployment == "colocated"
           ? fmt::format("{}: {} on {} (colocated prefill and decode, {} GPUs on {} nodes)", r.name, r.model,
                         r.topology, r.gpus, r.nodes)
           : fmt::format("{}: {} on {} ({}, {} GPUs: {} prefill + {} decode nodes)", r.name, r.model, r.topology,
                         r.deployment, r.gpus, r.prefill_nodes, r.decode_nodes));
  line(fmt::format("requests          {} simulated, {} measured over a {:.1f} s window ({:.2f} requests/s); "
                   "drained at {:.1f} s",
                   r.requests, r.measured, r.window_s, r.arrival_rate_per_s, r.simulated_s));
  line(fmt::format("throughput        input {:.0f} tokens/s, output {:.0f} tokens/s", r.input_tokens_per_s,
                   r.output_tokens_per_s));
  line(fmt::format("  per node        input {:.0f} tokens/s, output {:.0f} tokens/s (all {} nodes)",
                   r.input_tokens_per_s_per_node, r.output_tokens_per_s_per_node, r.nodes));
  if (r.deployment != "colocated")
    line(fmt::format("  per phase node  input {:.0f} tokens/s per prefill node, output {:.0f} tokens/s per decode node",
                     r.input_tokens_per_s_per_prefill_node, r.output_tokens_per_s_per_decode_node));
  line(fmt::format("  per GPU         input {:.0f} tokens/s, output {:.0f} tokens/s", r.input_tokens_per_s / r.gpus,
                   r.output_tokens_per_s / r.gpus));
  auto stats = [&](const char* name, const serve::LatencyStats& x) {
    line(fmt::format("{:<17} mean {}, P50 {}, P90 {}, P99 {}", name, latency(x.mean), latency(x.p50), latency(x.p90), latency(x.p99)));
  };
  stats("TTFT", r.ttft);
  if (r.tpot.max > 0) {
    stats("TPOT", r.tpot);
    stats("  after prefill", r.decode_wait);
  } else {
    line("TPOT              none: every measured request ended with its first token");
  }
  stats("end-to-end", r.e2e);
  line(fmt::format("goodput           {:.2f} requests/s meet TTFT <= {} and TPOT <= {} ({:.1f}% of requests)",
                   r.goodput_requests_per_s, latency(r.slo_ttft_s), latency(r.slo_tpot_s), 100 * r.slo_attainment));
  line(fmt::format("decode batch      {:.1f} sequences per attention-DP rank (time-weighted), {:.2f} tokens per step",
                   r.mean_decode_batch_per_rank, r.tokens_per_decode_step));
  line(fmt::format("KV cache          peak {:.1f}% of decode pages; per decode GPU {:.1f} GB weights, {:.1f} GB free, "
                   "{:.0f} B per token",
                   100 * r.peak_kv_utilisation, r.decode_kv.weight_bytes_per_gpu / 1e9,
                   r.decode_kv.free_bytes_per_gpu / 1e9, r.decode_kv.cache_bytes_per_token_per_gpu));
  for (const auto& p : r.phases) {
    const auto& b = p.mean_breakdown;
    line(fmt::format("{:<8} iteration {} mean over {} ({:.0f} {} per rank): attention {}, routed experts {}, other "
                     "compute {}, all-to-all {} (before overlap){}",
                     p.phase, latency(p.mean_iteration_s), p.iterations, p.mean_tokens_per_rank,
                     p.phase == "decode" ? "sequences" : "prefill tokens", latency(b.attention), latency(b.experts),
                     latency(b.other_compute), latency(b.communication),
                     b.host_weights > 0 ? ", weights from host memory " + latency(b.host_weights) : ""));
  }
  if (r.usd_per_million_output_tokens)
    line(fmt::format("cost              ${:.3f} per 1M output tokens", *r.usd_per_million_output_tokens));
  return s;
}

std::string serve_curve_to_text(const std::vector<std::pair<double, serve::ServeResult>>& curve) {
  std::string s = fmt::format("{:>12} {:>14} {:>14} {:>11} {:>11} {:>11} {:>11} {:>13}\n", "rate(req/s)",
                              "in(tok/s/node)", "out(tok/s/node)", "TTFT50(ms)", "TTFT99(ms)", "TPOT50(ms)",
                              "TPOT99(ms)", "goodput(req/s)");
  for (const auto& [rate, r] : curve)
    s += fmt::format("{:>12.3f} {:>14.0f} {:>14.0f} {:>11.1f} {:>11.1f} {:>11.2f} {:>11.2f} {:>13.3f}\n", rate,
                     r.input_tokens_per_s_per_node, r.output_tokens_per_s_per_node, r.ttft.p50 * 1e3,
                     r.ttft.p99 * 1e3, r.tpot.p50 * 1e3, r.tpot.p99 * 1e3, r.goodput_requests_per_s);
  return s;
}

nlohmann::json serve_compare_to_json(const std::vector<serve::ServeResult>& results) {
  struct Row { const char* label; const char* unit; const char* pointer; double scale; };
  const Row metrics[] = {
      {"output per node", "tokens/s", "/throughput/output_tokens_per_s_per_node", 1},
      {"input per node", "tokens/s", "/throughput/input_tokens_per_s_per_node", 1},
      {"output per decode node", "tokens/s", "/throughput/output_tokens_per_s_per_decode_node", 1},
      {"TTFT P50", "ms", "/ttft/p50_s", 1e3},
      {"TTFT P99", "ms", "/ttft/p99_s", 1e3},
      {"TPOT P50", "ms", "/tpot/p50_s", 1e3},
      {"TPOT P99", "ms", "/tpot/p99_s", 1e3},
      {"end-to-end P50", "ms", "/e2e_latency/p50_s", 1e3},
      {"goodput", "requests/s", "/goodput_requests_per_s", 1},
      {"SLO attainment", "%", "/slo_attainment", 100},
      {"decode batch per rank", "sequences", "/mean_decode_batch_per_rank", 1},
      {"peak KV use", "%", "/peak_kv_utilisation", 100},
      {"KV cache per token per decode GPU", "B", "/kv_capacity/decode/cache_bytes_per_token_per_gpu", 1},
      {"free HBM per decode GPU", "GB", "/kv_capacity/decode/free_bytes_per_gpu", 1e-9},
      {"GPUs", "", "/deployment/gpus", 1},
  };
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : results) list.push_back(serve_to_json(r));
  nlohmann::json out_rows = nlohmann::json::array();
  for (const auto& m : metrics) {
    nlohmann::json values = nlohmann::json::array();
    const double base = list.front().at(nlohmann::json::json_pointer(m.pointer)).get<double>();
    for (const auto& j : list) {
      const double v = j.at(nlohmann::json::json_pointer(m.pointer)).get<double>();
      nlohmann::json c{{"value", v * m.scale}};
      if (base != 0) c["delta_fraction"] = (v - base) / base;
      values.push_back(c);
    }
    out_rows.push_back({{"label", m.label}, {"unit", m.unit}, {"pointer", m.pointer}, {"values", values}});
  }
  nlohmann::json usd = nlohmann::json::array();
  for (const auto& r : results) usd.push_back(r.usd_per_million_output_tokens ? nlohmann::json(*r.usd_per_million_output_tokens) : nlohmann::json());
  return {{"baseline", list.front().at("name")}, {"results", list}, {"metrics", out_rows},
          {"usd_per_million_output_tokens", usd}};
}

std::string serve_compare_to_text(const nlohmann::json& compare) {
  std::string out = fmt::format("{:<40}", "deltas against " + compare.at("baseline").get<std::string>());
  for (const auto& r : compare.at("results")) out += fmt::format(" {:>26}", r.at("name").get<std::string>());
  out += "\n";
  for (const auto& m : compare.at("metrics")) {
    const std::string unit = m.at("unit").get<std::string>();
    out += fmt::format("{:<40}", m.at("label").get<std::string>().substr(0, 40));
    bool first = true;
    for (const auto& c : m.at("values")) {
      const std::string v = core::format_in_unit(c.at("value").get<double>(), unit);
      if (first || !c.contains("delta_fraction")) {
        out += fmt::format(" {:>26}", v);
      } else {
        out += fmt::format(" {:>16} ({:+6.1f}%)", v, 100 * c.at("delta_fraction").get<double>());
      }
      first = false;
    }
    out += "\n";
  }
  return out;
}

}  // namespace k3::results
