#include "reports/sections/kv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/quantity.hpp"
#include "reports/sections/json_fields.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

namespace {

Cell keyed(const nlohmann::json& row, const char* field, const std::string& prefix, std::size_t i, double scale = 1) {
  const double v = num(row, field);
  return Cell{display_number(v * scale), v, fmt::format("{}/rows/{}/{}", prefix, i, field)};
}


}  // namespace

void add_kv_section(Report& report, const nlohmann::json& kv) {
  fill_kv_section(report.add_section("kv", "KV cache and state per sequence"), kv, "");
}

void fill_kv_section(Section& s, const nlohmann::json& kv, const std::string& p) {
  const auto& rows = kv.at("rows");
  K3SIM_ASSERT(!rows.empty(), "kv section needs at least one row");
  s.paragraph(fmt::format("{} x {} ({} GiB HBM each), weights at {} B per parameter spread over the GPUs, {} % of "
                          "HBM reserved for activations and runtime. Linear-attention (KDA) layers keep a fixed "
                          "state per sequence; MLA / GQA layers grow with the context.",
                          kv.at("gpus").get<int>(), kv.at("gpu").at("name").get<std::string>(),
                          display_number(num(kv.at("gpu"), "hbm_bytes") / kGiB),
                          display_number(num(kv, "weight_bytes_per_param")),
                          display_number(100 * num(kv, "reserve_fraction"))));

  std::vector<std::string> models;
  std::vector<double> contexts;
  for (const auto& r : rows) {
    if (std::find(models.begin(), models.end(), r.at("model").get<std::string>()) == models.end())
      models.push_back(r.at("model").get<std::string>());
    if (std::find(contexts.begin(), contexts.end(), num(r, "context")) == contexts.end()) contexts.push_back(num(r, "context"));
  }
  LineChart per_seq;
  per_seq.title = "Cache and state per sequence";
  per_seq.x_axis = {"Context", "tokens", true};
  per_seq.y_axis = {"Bytes per sequence", "GiB", true};
  BarChart batch;
  batch.title = "Largest batch that fits per replica";
  batch.category_label = "Context";
  for (double c : contexts) batch.categories.push_back(core::format_binary_count(c));
  batch.value_axis = {"Sequences", "", true};
  for (const auto& m : models) {
    LineSeries line{m, {}, {}};
    BarSeries bars{m, std::vector<double>(contexts.size(), 0.0)};
    for (const auto& r : rows) {
      if (r.at("model").get<std::string>() != m) continue;
      line.x.push_back(num(r, "context"));
      line.y.push_back(num(r, "bytes_per_sequence") / kGiB);
      const auto at = std::find(contexts.begin(), contexts.end(), num(r, "context")) - contexts.begin();
      bars.values[static_cast<std::size_t>(at)] = num(r, "max_batch");
    }
    per_seq.series.push_back(std::move(line));
    batch.series.push_back(std::move(bars));
  }
  if (rows.front().contains("batch")) batch.references.push_back({"requested batch", num(rows.front(), "batch")});
  s.chart(line_chart(per_seq), "Log-log, whole replica. Look at the slopes: a flat start is fixed state (KDA), the slope is "
                               "the KV bytes per token of the layers that cache every token.");
  s.chart(bar_chart(batch), "Log scale. Look at the longest context: how many whole sequences fit in the HBM left after "
                           "weights and reserve.");

  Table t({{"Model", ""}, {"Context", "tokens"}, {"KV cache per token", ""}, {"State per sequence", "MiB"},
           {"Per sequence", "GiB"}, {"Per sequence per GPU", "GiB"}, {"Weights per GPU", "GiB"},
           {"Free per GPU", "GiB"}, {"Max batch", "sequences"}});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double context = num(r, "context"), kv_per_token = num(r, "kv_cache_bytes_per_token");
    t.add_row({Cell::of_text(r.at("model").get<std::string>()),
               Cell{core::format_binary_count(context), context, fmt::format("{}/rows/{}/context", p, i)},
               Cell{core::format_bytes(kv_per_token), kv_per_token, fmt::format("{}/rows/{}/kv_cache_bytes_per_token", p, i)}, keyed(r, "state_bytes_per_sequence", p, i, 1.0 / (1024 * 1024)),
               keyed(r, "bytes_per_sequence", p, i, 1 / kGiB), keyed(r, "bytes_per_sequence_per_gpu", p, i, 1 / kGiB),
               keyed(r, "weight_bytes_per_gpu", p, i, 1 / kGiB), keyed(r, "free_bytes_per_gpu", p, i, 1 / kGiB),
               keyed(r, "max_batch", p, i)});
  }
  t.caption("1 GiB = 2^30 B, 1 MiB = 2^20 B.");
  s.table(t);
  Table notes({{"Model", ""}, {"What it is", ""}});
  for (const auto& m : models)
    for (const auto& r : rows)
      if (r.at("model").get<std::string>() == m) {
        notes.add_row({Cell::of_text(m), Cell::of_text(r.at("note").get<std::string>())});
        break;
      }
  s.table(notes);
}

void write_kv_report(const std::string& path, const nlohmann::json& kv, RunInfo info) {
  const auto& rows = kv.at("rows");
  K3SIM_ASSERT(!rows.empty(), "kv report needs at least one row");
  const std::string model = rows.front().at("model").get<std::string>();
  Report report("KV cache and batch budget: " + model,
                fmt::format("{} GPUs of {} per replica.", kv.at("gpus").get<int>(), kv.at("gpu").at("name").get<std::string>()));
  // Cards: the first model (as published) at its longest context.
  std::size_t longest = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].at("model") == model && num(rows[i], "context") >= num(rows[longest], "context")) longest = i;
  const auto& r = rows[longest];
  const std::string k = fmt::format("/rows/{}/", longest);
  const std::string at = "at " + core::format_binary_count(num(r, "context")) + " tokens";
  report.add_section("summary", "Summary")
      .cards({{"KV cache per token", num(r, "kv_cache_bytes_per_token"), "KiB", k + "kv_cache_bytes_per_token",
               "all full-attention layers", 1.0 / 1024},
              {"Per sequence", num(r, "bytes_per_sequence"), "GiB", k + "bytes_per_sequence", at, 1 / kGiB},
              {"Free per GPU", num(r, "free_bytes_per_gpu"), "GiB", k + "free_bytes_per_gpu", "after weights and reserve",
               1 / kGiB},
              {"Max batch", num(r, "max_batch"), "sequences", k + "max_batch", at}});
  add_kv_section(report, kv);
  info.assumptions.push_back({"GPU HBM " + kv.at("gpu").at("name").get<std::string>(),
                              display_number(num(kv.at("gpu"), "hbm_bytes") / kGiB) + " GiB",
                              kv.at("gpu").at("source").get<std::string>()});
  info.assumptions.push_back({"Weights", "spread evenly over the replica's GPUs", "k3sim model"});
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
