#include "reports/sections/traffic.hpp"

#include <fmt/format.h>

#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

namespace {

const std::vector<std::string> kClasses{"nvlink", "nic", "fabric", "local"};
constexpr double kKiB = 1024.0;

}  // namespace

Heatmap traffic_heatmap(const TrafficMatrix& m) {
  K3SIM_ASSERT(m.gpus > 0 && m.dispatch_bytes.size() == static_cast<std::size_t>(m.gpus) * m.gpus,
               "traffic matrix is not gpus x gpus");
  const bool by_node = m.gpus > kMaxHeatmapGpus && m.gpus_per_node > 0;
  const int group = by_node ? m.gpus_per_node : 1;
  const int n = (m.gpus + group - 1) / group;
  Heatmap h;
  h.title = fmt::format("{}: dispatch bytes, {} x {} of one EP group of {} GPUs", m.model, by_node ? "node" : "GPU",
                        by_node ? "node" : "GPU", m.gpus);
  h.row_label = by_node ? "Sending node" : "Sending GPU";
  h.column_label = by_node ? "Receiving node" : "Receiving GPU";
  for (int i = 0; i < n; ++i) {
    h.rows.push_back(fmt::format("{}{}", by_node ? "node " : "", i));
    h.columns.push_back(fmt::format("{}{}", by_node ? "node " : "", i));
  }
  h.values.assign(static_cast<std::size_t>(n) * n, 0.0);
  for (int s = 0; s < m.gpus; ++s)
    for (int d = 0; d < m.gpus; ++d)
      h.values[static_cast<std::size_t>(s / group) * n + d / group] +=
          m.dispatch_bytes[static_cast<std::size_t>(s) * m.gpus + d] / (1024.0 * 1024.0);
  h.value_name = "Dispatch bytes";
  h.value_unit = "MiB";
  h.size = {760, 700};
  return h;
}

void add_traffic_section(Report& report, const nlohmann::json& traffic, const std::vector<TrafficMatrix>& matrices) {
  const auto& models = traffic.at("models");
  K3SIM_ASSERT(!models.empty(), "traffic section needs at least one model");
  Section& s = report.add_section("traffic", "Expert all-to-all traffic");
  s.paragraph("Bytes per token per MoE layer (dispatch in FP8 with scales plus combine in BF16), uniform routing. "
              "A token goes once to each GPU (flat) or node (hierarchical) holding any of its experts. fabric is the "
              "part of the NIC bytes that changes rail; local needs no link.");
  BarChart bars;
  bars.title = "Bytes per token per link class";
  bars.category_label = "Model";
  bars.value_axis = {"Bytes per token", "KiB", false};
  for (const auto& m : models) bars.categories.push_back(m.at("model").get<std::string>());
  for (const auto& c : kClasses) {
    BarSeries series{c, {}};
    for (const auto& m : models) series.values.push_back(m.at("bytes_per_token").at(c).get<double>() / kKiB);
    bars.series.push_back(std::move(series));
  }
  s.chart(bar_chart(bars), "Grouped, not stacked: fabric bytes are part of the NIC bytes.");

  Table t({{"Model", ""}, {"Experts", ""}, {"Top-k", ""}, {"EP", "GPUs"}, {"NVLink per token", "KiB"},
           {"NIC per token", "KiB"}, {"Fabric per token", "KiB"}, {"Distinct GPUs per token", "GPUs"},
           {"Dedup per GPU", "x"}, {"Max / mean GPU bytes", "x"}});
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& m = models[i];
    const std::string k = fmt::format("/models/{}/", i);
    auto per_token = [&](const char* c) {
      const double v = m.at("bytes_per_token").at(c).get<double>();
      return Cell{display_number(v / kKiB), v, k + "bytes_per_token/" + c};
    };
    t.add_row({Cell::of_text(m.at("model").get<std::string>()), Cell::of_number(m.at("experts").get<double>(), k + "experts"),
               Cell::of_number(m.at("top_k").get<double>(), k + "top_k"), Cell::of_number(m.at("ep").get<double>(), k + "ep"),
               per_token("nvlink"), per_token("nic"), per_token("fabric"),
               Cell::of_number(m.at("distinct_gpus_per_token").get<double>(), k + "distinct_gpus_per_token"),
               Cell::of_number(m.at("dedup_factor").at("gpu").get<double>(), k + "dedup_factor/gpu"),
               Cell::of_number(m.at("max_over_mean_gpu_bytes").get<double>(), k + "max_over_mean_gpu_bytes")});
  }
  s.table(t);
  for (const auto& m : matrices)
    s.chart(heatmap(traffic_heatmap(m)), m.gpus > kMaxHeatmapGpus
                                            ? "Summed per node: the diagonal is NVLink traffic, the rest leaves through NICs."
                                            : "The diagonal is local (no link); blocks along it stay inside a node.");
}

void write_traffic_report(const std::string& path, const nlohmann::json& traffic,
                          const std::vector<TrafficMatrix>& matrices, RunInfo info) {
  Report report("Expert all-to-all traffic", "Uniform routing, bytes per token per MoE layer by link class.");
  add_traffic_section(report, traffic, matrices);
  info.assumptions.push_back({"Dispatch element size", "1 + 4/128 B (FP8 plus one fp32 scale per 128)",
                              "DeepSeek-V3, arXiv:2412.19437 sec. 3.3"});
  info.assumptions.push_back({"Combine element size", "2 B (BF16)", "DeepSeek-V3, arXiv:2412.19437"});
  info.assumptions.push_back({"Routing", "uniform top-k over the experts", "k3sim model"});
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
