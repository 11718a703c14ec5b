// Several steps side by side (`k3sim compare`): one table row, one stacked bar and one point per variant.
#include <fmt/format.h>

#include <algorithm>

#include "reports/sections/step.hpp"
#include "reports/sections/json_fields.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

namespace {

// A keyed cell when the variant has a pointer, a plain number otherwise; shown as value x scale.
Cell cell(const nlohmann::json& step, const char* field, const std::vector<std::string>& prefixes, std::size_t i,
          double scale = 1) {
  const double v = num(step, field);
  return Cell{display_number(v * scale), v, prefixes.empty() ? std::string{} : prefixes[i] + "/" + field};
}

// One stacked series per distinct `name_key` value of the `list` entries (in order of first appearance over
// the steps), each holding per step the sum of `value_key` over its matching entries, divided by `unit`.
std::vector<BarSeries> stacked_by(const std::vector<nlohmann::json>& steps, const char* list, const char* name_key,
                                  const char* value_key, double unit = 1) {
  std::vector<std::string> names;
  for (const auto& st : steps)
    for (const auto& e : st.at(list))
      if (std::find(names.begin(), names.end(), e.at(name_key).get<std::string>()) == names.end())
        names.push_back(e.at(name_key).get<std::string>());
  std::vector<BarSeries> out;
  for (const auto& name : names) {
    BarSeries series{name, {}};
    for (const auto& st : steps) {
      double sum = 0;
      for (const auto& e : st.at(list))
        if (e.at(name_key).get<std::string>() == name) sum += e.at(value_key).get<double>();
      series.values.push_back(sum / unit);
    }
    out.push_back(std::move(series));
  }
  return out;
}

}  // namespace

void add_step_comparison_section(Report& report, const std::vector<nlohmann::json>& steps,
                                 const std::vector<std::string>& names, const std::vector<std::string>& key_prefixes) {
  K3SIM_ASSERT(!steps.empty(), "a comparison needs at least one step");
  K3SIM_ASSERT(names.size() == steps.size(), "one name per compared step");
  K3SIM_ASSERT(key_prefixes.empty() || key_prefixes.size() == steps.size(), "one key prefix per compared step");
  Section& s = report.add_section("comparison", "Variants side by side");

  Table t({{"Variant", ""}, {"Step time", "s"}, {"Throughput", "tokens/s"}, {"Model FLOPs per GPU", "TFLOP/s"},
           {"MFU", "%"}, {"Memory per GPU", "GiB"}, {"GPU-hours per trillion tokens", "GPU-h"}});
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& st = steps[i];
    t.add_row({Cell::of_text(names[i]), cell(st, "step_time_s", key_prefixes, i), cell(st, "tokens_per_s", key_prefixes, i),
               cell(st, "tflops_per_gpu", key_prefixes, i), cell(st, "mfu", key_prefixes, i, 100),
               cell(st, "memory_bytes_per_gpu", key_prefixes, i, 1 / kGiB),
               cell(st, "gpu_hours_per_trillion_tokens", key_prefixes, i)});
  }
  s.table(t);

  // Step time: variants as bars, breakdown categories stacked (same categories and order for every variant).
  BarChart time;
  time.title = "Step time by category";
  time.category_label = "Variant";
  time.categories = names;
  time.value_axis = {"Step time", "s", false};
  time.layout = BarLayout::kStacked;
  time.series = stacked_by(steps, "breakdown", "category", "seconds");
  if (!time.series.empty()) s.chart(bar_chart(time), "Critical pipeline rank of each variant.");

  BarChart mem;
  mem.title = "Memory per GPU by category";
  mem.category_label = "Variant";
  mem.categories = names;
  mem.value_axis = {"Memory", "GiB", false};
  mem.layout = BarLayout::kStacked;
  mem.series = stacked_by(steps, "memory_per_gpu", "name", "bytes", kGiB);
  // One HBM line per distinct capacity (variants usually share the GPU).
  for (const auto& st : steps) {
    const double hbm = num(st, "hbm_bytes") / kGiB;
    if (std::none_of(mem.references.begin(), mem.references.end(), [&](const ReferenceLine& r) { return r.value == hbm; }))
      mem.references.push_back({"HBM", hbm});
  }
  if (!mem.series.empty()) s.chart(bar_chart(mem), "Dashed line: HBM capacity per GPU.");

  BarChart rate;
  rate.title = "Throughput";
  rate.category_label = "Variant";
  rate.categories = names;
  rate.value_axis = {"Throughput", "tokens/s", false};
  BarSeries tps{"", {}};
  for (const auto& st : steps) tps.values.push_back(num(st, "tokens_per_s"));
  rate.series.push_back(std::move(tps));
  rate.size = {960, 300};
  s.chart(bar_chart(rate));
}

}  // namespace k3::reports
