// Review sections on the experts: the all-to-all (bytes per link class, dedup, one EP group's matrix, the
// latent saving) and load balancing (MaxVio per step against the noise floor, what the rest costs).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/quantity.hpp"
#include "reports/sections/review_parts.hpp"
#include "reports/sections/traffic.hpp"
#include "reports/text.hpp"

namespace k3::reports::review {

namespace {

constexpr double kKiB = 1024.0;
const std::vector<std::string> kLinkClasses{"nvlink", "nic", "fabric"};

double num(const nlohmann::json& j, const std::string& pointer) {
  return j.at(nlohmann::json::json_pointer(pointer)).get<double>();
}

Cell keyed(const nlohmann::json& doc, const std::string& prefix, const std::string& field, double scale = 1) {
  const double v = num(doc, field);
  return Cell{display_number(v * scale), v, prefix + field};
}

void add_latent(Section& s, const nlohmann::json& review) {
  const auto& latent = review.at("latent");
  for (std::size_t i = 0; i < latent.size(); ++i) {
    const auto& l = latent[i];
    const std::string k = fmt::format("/review/latent/{}", i);
    const double nic = num(l, "/bytes_per_token/nic"), nic_full = num(l, "/full_width_bytes_per_token/nic");
    const double nvl = num(l, "/bytes_per_token/nvlink"), nvl_full = num(l, "/full_width_bytes_per_token/nvlink");
    s.paragraph(fmt::format(
        "The latent saving ({}): its routed experts work in a {}-element latent instead of the {}-element hidden "
        "state, so one token's dispatch and combine in one MoE layer move {} over NICs and {} over NVLink, against "
        "{} and {} at the full width: {} and {} less. Over the {} MoE layers of a step, forward and backward, that is "
        "{} of NIC time and {} of NVLink time per GPU at line rate, before any overlap with compute.",
        l.at("variant").get<std::string>(), l.at("latent_width").get<int>(), l.at("full_width").get<int>(),
        bytes_text(nic), bytes_text(nvl), bytes_text(nic_full), bytes_text(nvl_full), bytes_text(nic_full - nic),
        bytes_text(nvl_full - nvl), l.at("moe_layers").get<int>(),
        seconds_text(num(l, "/saved_link_seconds_per_gpu_per_step/nic")),
        seconds_text(num(l, "/saved_link_seconds_per_gpu_per_step/nvlink"))));
    Table t({{"Link class", ""}, {"Latent width, per token", "B"}, {"Full width, per token", "B"},
             {"Saved per token", "B"}, {"Line rate per GPU", "GB/s"}, {"Link time saved per GPU per step", "s"}});
    for (const char* c : {"nvlink", "nic"}) {
      const std::string cls(c);
      t.add_row({Cell::of_text(cls), keyed(l, k, "/bytes_per_token/" + cls), keyed(l, k, "/full_width_bytes_per_token/" + cls),
                 keyed(l, k, "/saved_bytes_per_token/" + cls), keyed(l, k, "/injection_bytes_per_s_per_gpu/" + cls, 1e-9),
                 keyed(l, k, "/saved_link_seconds_per_gpu_per_step/" + cls)});
    }
    t.caption("Per token per MoE layer, dispatch plus combine, uniform routing of the variant's own EP group.");
    s.table(t);
  }
}

}  // namespace

void add_all_to_all(Report& report, const nlohmann::json& review) {
  const auto& models = review.at("traffic").at("models");
  if (models.empty()) return;
  Section& s = report.add_section("all-to-all", "The all-to-all: what crosses which links?");
  s.paragraph("Bytes one token moves per MoE layer (dispatch in the scenario's precision plus combine), by link "
              "class, for each variant's EP group, from uniformly routed tokens (the `k3sim traffic` model). A token "
              "goes once to each GPU (flat) or node (DeepEP's normal kernels) holding any of its experts: the dedup "
              "factor is how many expert copies one transfer serves.");
  BarChart bytes;
  bytes.title = "Bytes per token per MoE layer, by link class";
  bytes.category_label = "Link class";
  bytes.value_axis = {"Bytes per token", "KiB", false};
  // Classes no variant uses (fabric on a rail-optimised fabric with DeepEP) would be empty groups.
  for (const auto& c : kLinkClasses) {
    const bool used = std::any_of(models.begin(), models.end(),
                                  [&](const nlohmann::json& m) { return m.at("bytes_per_token").at(c).get<double>() > 0; });
    if (used) bytes.categories.push_back(c);
  }
  BarChart dedup;
  dedup.title = "Dedup factor: expert copies per transfer";
  dedup.category_label = "Where copies merge";
  dedup.value_axis = {"Dedup factor", "x", false};
  dedup.categories = {"per GPU", "per node"};
  for (const auto& m : models) {
    const std::string name = m.at("variant").get<std::string>();
    BarSeries b{name, {}}, d{name, {m.at("dedup_factor").at("gpu").get<double>(), m.at("dedup_factor").at("node").get<double>()}};
    for (const auto& c : bytes.categories) b.values.push_back(m.at("bytes_per_token").at(c).get<double>() / kKiB);
    bytes.series.push_back(std::move(b));
    dedup.series.push_back(std::move(d));
  }
  bytes.size = dedup.size = {960, 320};
  s.chart(bar_chart(bytes), "Look at the NIC bars: they are what the scale-out fabric carries. Fabric bytes are the part "
                            "of the NIC bytes that changes rail (grouped, not stacked); a class no variant uses is left out.");
  s.chart(bar_chart(dedup), "Look at per node: the higher it is, the fewer copies cross a NIC for the same experts.");

  const auto& first = models.front();
  if (first.contains("dispatch_matrix_bytes")) {
    TrafficMatrix m{first.at("variant").get<std::string>(), first.at("ep").get<int>(), first.at("gpus_per_node").get<int>(),
                    first.at("dispatch_matrix_bytes").get<std::vector<double>>()};
    s.chart(heatmap(traffic_heatmap(m)),
            "Look at the blocks along the diagonal: a node's GPUs exchange over NVLink; everything off them leaves "
            "through NICs. Dispatch bytes of one EP group for the sampled tokens.");
  }
  add_latent(s, review);

  Table t({{"Variant", ""}, {"Experts", ""}, {"Top-k", ""}, {"EP", "GPUs"}, {"Width", "elements"},
           {"NVLink per token", "KiB"}, {"NIC per token", "KiB"}, {"Distinct GPUs per token", "GPUs"},
           {"Distinct nodes per token", "nodes"}, {"Dedup per GPU", "x"}, {"Dedup per node", "x"}});
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& m = models[i];
    const std::string k = fmt::format("/review/traffic/models/{}", i);
    t.add_row({Cell::of_text(m.at("variant").get<std::string>()), keyed(m, k, "/experts"), keyed(m, k, "/top_k"),
               keyed(m, k, "/ep"), keyed(m, k, "/width_elements"), keyed(m, k, "/bytes_per_token/nvlink", 1 / kKiB),
               keyed(m, k, "/bytes_per_token/nic", 1 / kKiB), keyed(m, k, "/distinct_gpus_per_token"),
               keyed(m, k, "/distinct_nodes_per_token"), keyed(m, k, "/dedup_factor/gpu"), keyed(m, k, "/dedup_factor/node")});
  }
  t.caption("1 KiB = 1,024 B. Per token per MoE layer.");
  s.table(t);
}

void add_balancing(Report& report, const nlohmann::json& review, const std::vector<VariantView>& vs) {
  const auto& balance = review.at("balance");
  const auto& runs = balance.at("runs");
  if (runs.empty()) return;
  Section& s = report.add_section("balancing", "Load balancing: does the router converge, and what is left?");
  s.paragraph(fmt::format(
      "MaxVio = (max - mean) / mean tokens per expert of the global batch after each bias update, for Quantile "
      "Balancing (histogram, 1000 bins) and sign-SGD on each variant's routing shape: {} ranks x {} tokens per step, "
      "{} steps (the `k3sim balance` model; a short run, to keep the report fast: sign-SGD moves each bias by a fixed "
      "0.001 per step and needs hundreds of steps, `k3sim balance --steps 300` shows the rest). The noise floor is what "
      "an ideal router with equal expected loads still shows on a batch of that size.",
      balance.at("ranks").get<int>(), balance.at("tokens_per_rank").get<int>(), balance.at("steps").get<int>()));
  LineChart c;
  c.title = "MaxVio per step";
  c.x_axis = {"Step", "", false};
  c.y_axis = {"MaxVio", "ratio", true};
  std::vector<std::string> floors;
  for (const auto& r : runs) {
    LineSeries series{r.at("model").get<std::string>() + " \u00b7 " + r.at("balancer").get<std::string>(), {}, {}};
    for (const auto& p : r.at("curve")) {
      series.x.push_back(p.at("step").get<double>());
      series.y.push_back(p.at("max_vio").get<double>());
    }
    c.series.push_back(std::move(series));
    const auto model = r.at("model").get<std::string>();
    if (std::find(floors.begin(), floors.end(), model) == floors.end()) {
      floors.push_back(model);
      c.references.push_back({"noise floor " + model, r.at("noise_floor").get<double>()});
    }
  }
  s.chart(line_chart(c), "Log scale. Look at how close each curve settles to its model's dashed noise floor, and how fast.");

  // What the imbalance left in the simulated step costs: the routed-expert GEMMs wait for the hottest GPU.
  BarChart cost;
  cost.title = "Routed-expert GEMM time lost to imbalance, per step";
  cost.category_label = "Variant";
  cost.value_axis = {"Time", "s", false};
  cost.layout = BarLayout::kStacked;
  cost.orientation = Orientation::kHorizontal;
  BarSeries noise{"sampling noise of the batch", {}}, above{"above the noise floor", {}};
  Table lost({{"Variant", ""}, {"Routed-expert GEMM", "s"}, {"Hottest GPU tokens / mean", "x"},
              {"Noise floor, max / mean", "x"}, {"Lost to imbalance", "s"}, {"Of which sampling noise", "s"}});
  for (const auto& v : vs) {
    const auto& load = v.result().at("expert_load");
    const auto& per_sample = load.at("max_over_mean_per_gpu");
    if (per_sample.empty()) continue;
    double m = 0;
    for (const auto& x : per_sample) m += x.get<double>();
    m /= static_cast<double>(per_sample.size());
    const double floor = load.at("noise_floor_max_over_mean").get<double>();
    const std::string gemm_name = "compute: routed-expert GEMM";
    const auto& b = v.entry->at("breakdown_s");
    if (!b.contains(gemm_name)) continue;
    const double gemm = b.at(gemm_name).get<double>();
    // The step ran the GEMMs at the hottest GPU's load; balanced, they would take gemm / m.
    const double lost_s = gemm * (1 - 1 / m), noise_s = std::min(lost_s, gemm * (1 - 1 / std::max(floor, 1.0)));
    cost.categories.push_back(v.name);
    noise.values.push_back(noise_s);
    above.values.push_back(lost_s - noise_s);
    lost.add_row({Cell::of_text(v.name),
                  Cell::of_number(gemm, (nlohmann::json::json_pointer(v.pointer + "/breakdown_s") / gemm_name).to_string()),
                  Cell::of_number(m), Cell::of_number(floor, v.pointer + "/result/expert_load/noise_floor_max_over_mean"),
                  Cell::of_number(lost_s), Cell::of_number(noise_s)});
  }
  if (!cost.categories.empty()) {
    cost.series_colours = {detail::family_colour("other", 1), detail::family_colour("compute", 0)};
    cost.series = {noise, above};
    cost.size = {960, 150 + 50.0 * static_cast<double>(cost.categories.size())};
    s.chart(bar_chart(cost), "Look at the dark part: time a better balancer could still win; the grey part is the "
                             "batch's sampling noise, which no balancer removes.");
    lost.caption("Lost = routed-expert GEMM x (1 - mean / max) of the step's per-GPU loads (mean over its routing "
                 "samples): what a perfectly balanced EP group would save on those GEMMs. An estimate: the "
                 "all-to-all's share of the imbalance is not counted.");
    s.table(lost);
  }

  Table t({{"Model", ""}, {"Balancer", ""}, {"Noise floor", "MaxVio"}, {"Steps to 1.5x floor", "steps"},
           {"Steady MaxVio mean", "MaxVio"}, {"Steady MaxVio p99", "MaxVio"}, {"All-reduce per layer", ""}});
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const std::string k = fmt::format("/review/balance/runs/{}", i);
    t.add_row({Cell::of_text(r.at("model").get<std::string>()), Cell::of_text(r.at("balancer").get<std::string>()),
               keyed(r, k, "/noise_floor"),
               r.at("steps_to_floor").is_null() ? Cell::of_text("not reached") : keyed(r, k, "/steps_to_floor"),
               keyed(r, k, "/steady_maxvio_mean"), keyed(r, k, "/steady_maxvio_p99"),
               Cell{core::format_bytes(num(r, "/allreduce_bytes_per_layer")), num(r, "/allreduce_bytes_per_layer"),
                    k + "/allreduce_bytes_per_layer"}});
  }
  t.caption("Steady = mean and 99th percentile over the second half of the steps.");
  s.table(t);
}

}  // namespace k3::reports::review
