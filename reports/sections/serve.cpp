#include "reports/sections/serve.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "reports/text.hpp"

namespace k3::reports {

namespace {

double at(const nlohmann::json& j, const std::string& pointer) { return j.at(nlohmann::json::json_pointer(pointer)).get<double>(); }

void add_curve_section(Report& report, const nlohmann::json& curve) {
  Section& s = report.add_section("curve", "Latency and throughput against the arrival rate");
  s.paragraph("Poisson arrivals at each rate over the same window. Throughput follows the rate until the deployment "
              "saturates; past that, queues grow and TTFT with them.");
  LineChart latency;
  latency.title = "Latency percentiles";
  latency.x_axis = {"Arrival rate", "requests/s", true};
  latency.y_axis = {"Latency", "ms", true};
  LineChart throughput;
  throughput.title = "Throughput per node";
  throughput.x_axis = {"Arrival rate", "requests/s", true};
  throughput.y_axis = {"Tokens per second per node", "tokens/s", true};
  const std::pair<const char*, const char*> lines[] = {
      {"TTFT P50", "/ttft/p50_s"}, {"TTFT P99", "/ttft/p99_s"}, {"TPOT P50", "/tpot/p50_s"}, {"TPOT P99", "/tpot/p99_s"}};
  for (const auto& [name, key] : lines) {
    LineSeries l{name, {}, {}};
    for (const auto& p : curve) {
      l.x.push_back(p.at("rate_per_s").get<double>());
      l.y.push_back(1e3 * at(p.at("result"), key));
    }
    latency.series.push_back(std::move(l));
  }
  for (const auto& [name, key] : {std::pair<const char*, const char*>{"input", "/throughput/input_tokens_per_s_per_node"},
                                  {"output", "/throughput/output_tokens_per_s_per_node"}}) {
    LineSeries l{name, {}, {}};
    for (const auto& p : curve) {
      l.x.push_back(p.at("rate_per_s").get<double>());
      l.y.push_back(std::max(1e-9, at(p.at("result"), key)));
    }
    throughput.series.push_back(std::move(l));
  }
  // The SLO's two targets, the same at every rate (the scenario's slo block).
  const auto& slo = curve.front().at("result");
  latency.references.push_back({"TTFT SLO", 1e3 * at(slo, "/slo/ttft_s")});
  latency.references.push_back({"TPOT SLO", 1e3 * at(slo, "/slo/tpot_s")});
  s.chart(line_chart(latency), "Log-log. Time to first token and time per output token; the dashed lines are the SLO's "
                               "targets, which each P99 must stay under.");
  s.chart(line_chart(throughput), "Log-log. Over all nodes of the deployment.");
  Table t({{"Rate", "requests/s"}, {"Output per node", "tokens/s"}, {"TTFT P50", "s"}, {"TTFT P99", "s"},
           {"TPOT P50", "s"}, {"TPOT P99", "s"}, {"Goodput", "requests/s"}});
  for (std::size_t i = 0; i < curve.size(); ++i) {
    const auto& p = curve[i];
    const std::string k = fmt::format("/curve/{}/", i);
    auto cell = [&](const std::string& key) { return Cell::of_number(at(p, "/result" + key), k + "result" + key); };
    t.add_row({Cell::of_number(p.at("rate_per_s").get<double>(), k + "rate_per_s"),
               cell("/throughput/output_tokens_per_s_per_node"), cell("/ttft/p50_s"), cell("/ttft/p99_s"),
               cell("/tpot/p50_s"), cell("/tpot/p99_s"), cell("/goodput_requests_per_s")});
  }
  s.table(t);
}

void add_result_sections(Report& report, const nlohmann::json& r, const std::string& k) {
  Section& kv = report.add_section("kv", "KV cache in use over time");
  kv.paragraph(fmt::format(
      "Pages reserved on the decode ranks (each request reserves its prompt and output in whole pages) over their "
      "pages after weights and the reserve: {} GiB free per decode GPU after {} GiB of weights.",
      display_number(at(r, "/kv_capacity/decode/free_bytes_per_gpu") / (1024.0 * 1024 * 1024)),
      display_number(at(r, "/kv_capacity/decode/weight_bytes_per_gpu") / (1024.0 * 1024 * 1024))));
  LineChart use;
  use.title = "KV cache utilisation";
  use.x_axis = {"Simulated time", "s", false};
  use.y_axis = {"Pages in use", "%", false};
  LineSeries l{"decode ranks", {}, {}};
  for (const auto& p : r.at("kv_utilisation")) {
    l.x.push_back(p.at("time_s").get<double>());
    l.y.push_back(100 * p.at("utilisation").get<double>());
  }
  if (l.x.empty()) l.x = {0}, l.y = {0};
  use.series.push_back(std::move(l));
  use.references.push_back({"capacity", 100});
  kv.chart(line_chart(use), "The peak of each of at most 200 intervals.");

  Section& ph = report.add_section("phases", "Iterations by phase");
  ph.paragraph("Mean time of one iteration of each phase and where it goes. The all-to-all is its time before "
               "two-batch overlap hides it under the other half batch's compute.");
  BarChart parts;
  parts.title = "Mean iteration, by part";
  parts.category_label = "Phase";
  parts.value_axis = {"Time", "ms", false};
  parts.layout = BarLayout::kGrouped;
  const std::pair<const char*, const char*> fields[] = {{"attention", "attention_s"},
                                                        {"routed experts", "routed_experts_s"},
                                                        {"other compute", "other_compute_s"},
                                                        {"all-to-all", "communication_s"},
                                                        {"weights from host memory", "host_weights_s"},
                                                        {"iteration", "total_s"}};
  for (const auto& [name, field] : fields) parts.series.push_back({name, {}});
  Table t({{"Phase", ""}, {"Iterations", ""}, {"Mean iteration", "s"}, {"Work per rank", "tokens or sequences"},
           {"Attention", "s"}, {"Routed experts", "s"}, {"Other compute", "s"}, {"All-to-all", "s"},
           {"Weights from host memory", "s"}});
  const auto& phases = r.at("phases");
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const auto& p = phases[i];
    parts.categories.push_back(p.at("phase").get<std::string>());
    for (std::size_t f = 0; f < parts.series.size(); ++f)
      parts.series[f].values.push_back(1e3 * p.at("mean_breakdown").at(fields[f].second).get<double>());
    const std::string pk = fmt::format("{}phases/{}/", k, i);
    auto part = [&](const char* field) {
      return Cell::of_number(p.at("mean_breakdown").at(field).get<double>(), pk + "mean_breakdown/" + field);
    };
    t.add_row({Cell::of_text(p.at("phase").get<std::string>()),
               Cell::of_number(p.at("iterations").get<double>(), pk + "iterations"),
               Cell::of_number(p.at("mean_iteration_s").get<double>(), pk + "mean_iteration_s"),
               Cell::of_number(p.at("mean_work_per_rank").get<double>(), pk + "mean_work_per_rank"),
               part("attention_s"), part("routed_experts_s"), part("other_compute_s"), part("communication_s"),
               part("host_weights_s")});
  }
  if (!parts.categories.empty()) ph.chart(bar_chart(parts));
  ph.table(t);
}

// Whether the deployment meets its SLO, what share of requests does, each P99 against its target, and the price.
std::vector<std::string> serve_verdict(const nlohmann::json& r, const std::string& where) {
  const double ttft = at(r, "/ttft/p99_s"), tpot = at(r, "/tpot/p99_s");
  const double ttft_slo = at(r, "/slo/ttft_s"), tpot_slo = at(r, "/slo/tpot_s");
  const bool met = ttft <= ttft_slo && tpot <= tpot_slo;
  const auto ms = [](double s) { return display_number(1e3 * s) + " ms"; };
  std::vector<std::string> out;
  out.push_back(fmt::format("{} {}: {}% of requests meet TTFT <= {} and TPOT <= {}.",
                            met ? "The SLO is met at P99" : "The SLO is not met at P99", where,
                            display_number(100 * at(r, "/slo_attainment")), ms(ttft_slo), ms(tpot_slo)));
  out.push_back(fmt::format("P99 TTFT {} ({} the target); P99 TPOT {} ({} the target).", ms(ttft),
                            ttft <= ttft_slo ? "within" : "over", ms(tpot), tpot <= tpot_slo ? "within" : "over"));
  if (r.contains("usd_per_million_output_tokens"))
    out.push_back(fmt::format("${} per 1M output tokens.", display_number(at(r, "/usd_per_million_output_tokens"))));
  return out;
}

}  // namespace

void write_serve_report(const std::string& path, const nlohmann::json& serve, RunInfo info) {
  const bool curve = serve.contains("curve");
  std::size_t best = 0;
  if (curve) {
    K3SIM_ASSERT(!serve.at("curve").empty(), "serve report needs at least one curve point");
    for (std::size_t i = 0; i < serve.at("curve").size(); ++i)
      if (at(serve.at("curve")[i], "/result/goodput_requests_per_s") >
          at(serve.at("curve")[best], "/result/goodput_requests_per_s"))
        best = i;
  }
  const nlohmann::json& r = curve ? serve.at("curve")[best].at("result") : serve;
  const std::string k = curve ? fmt::format("/curve/{}/result/", best) : "/";
  Report report("Serving: " + r.at("name").get<std::string>(),
                fmt::format("{} on {}: {} deployment, {} GPUs ({} prefill + {} decode nodes).",
                            r.at("model").get<std::string>(), r.at("topology").get<std::string>(),
                            r.at("deployment").at("kind").get<std::string>(), r.at("deployment").at("gpus").get<int>(),
                            r.at("deployment").at("prefill_nodes").get<int>(),
                            r.at("deployment").at("decode_nodes").get<int>()));
  const std::string where = curve ? fmt::format("at {} requests/s (most goodput)", display_number(
                                                    serve.at("curve")[best].at("rate_per_s").get<double>()))
                                  : fmt::format("at {} requests/s", display_number(r.at("arrival_rate_per_s").get<double>()));
  auto& summary = report.add_section("summary", "Summary");
  summary.verdict(serve_verdict(r, where));
  summary.cards({{"Output per node", at(r, "/throughput/output_tokens_per_s_per_node"), "tokens/s",
               k + "throughput/output_tokens_per_s_per_node", where},
              {"Input per node", at(r, "/throughput/input_tokens_per_s_per_node"), "tokens/s",
               k + "throughput/input_tokens_per_s_per_node", "prompt tokens prefilled"},
              {"TTFT P50", at(r, "/ttft/p50_s"), "ms", k + "ttft/p50_s",
               fmt::format("P99 {} ms; after prefill P50 {} ms", display_number(1e3 * at(r, "/ttft/p99_s")),
                           display_number(1e3 * at(r, "/decode_wait/p50_s"))), 1e3},
              {"TPOT P50", at(r, "/tpot/p50_s"), "ms", k + "tpot/p50_s",
               fmt::format("P99 {} ms", display_number(1e3 * at(r, "/tpot/p99_s"))), 1e3},
              {"Goodput", at(r, "/goodput_requests_per_s"), "requests/s", k + "goodput_requests_per_s",
               fmt::format("TTFT <= {} ms and TPOT <= {} ms", display_number(1e3 * at(r, "/slo/ttft_s")),
                           display_number(1e3 * at(r, "/slo/tpot_s")))}});
  if (curve) add_curve_section(report, serve.at("curve"));
  add_result_sections(report, r, k);
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
