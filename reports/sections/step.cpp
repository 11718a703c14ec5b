#include "reports/sections/step.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "reports/sections/goodput.hpp"
#include "reports/sections/json_fields.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

namespace {

constexpr double kTB = 1e12;
// Categories of StepResult::breakdown, in the order they stack.
const std::vector<std::string> kTimeCategories{"compute", "communication", "host", "bubble", "optimizer"};

Cell scaled_cell(double value, double scale, std::string key, int significant = 4) {
  return Cell{display_number(value * scale, significant), value, std::move(key)};
}

std::string pct(double fraction) { return fmt::format("{:.1f} %", 100 * fraction); }

// Seconds per breakdown category, in kTimeCategories order (unknown categories fold into the last seen).
std::vector<double> seconds_by_category(const nlohmann::json& step) {
  std::vector<double> out(kTimeCategories.size(), 0.0);
  for (const auto& b : step.at("breakdown")) {
    const auto cat = b.at("category").get<std::string>();
    const auto it = std::find(kTimeCategories.begin(), kTimeCategories.end(), cat);
    out[it == kTimeCategories.end() ? 1 : static_cast<std::size_t>(it - kTimeCategories.begin())] +=
        b.at("seconds").get<double>();
  }
  return out;
}

struct TimeUnit {
  const char* name;
  double per_second;
};
TimeUnit time_unit(double seconds) { return seconds >= 1 ? TimeUnit{"s", 1} : TimeUnit{"ms", 1e3}; }

void add_breakdown(Report& report, const nlohmann::json& step, const std::string& k) {
  Section& s = report.add_section("breakdown", "Step-time breakdown");
  const double step_s = num(step, "step_time_s");
  const TimeUnit u = time_unit(step_s);
  s.paragraph("Where the critical pipeline rank spends the step. Exposed communication is the part not hidden "
              "behind compute; the bubble is the pipeline's idle time.");
  BarChart stacked;
  stacked.title = "Step time by category";
  stacked.category_label = "";
  stacked.categories = {"critical rank"};
  stacked.value_axis = {"Time", u.name, false};
  const auto by_cat = seconds_by_category(step);
  for (std::size_t c = 0; c < kTimeCategories.size(); ++c) stacked.series.push_back({kTimeCategories[c], {by_cat[c] * u.per_second}});
  stacked.layout = BarLayout::kStacked;
  stacked.orientation = Orientation::kHorizontal;
  stacked.size = {960, 170};
  s.chart(bar_chart(stacked));

  BarChart items;
  items.title = "Step time by cause, largest first";
  items.category_label = "";
  items.value_axis = {"Time", u.name, false};
  items.orientation = Orientation::kHorizontal;
  std::vector<std::pair<double, std::string>> causes;
  Table t({{"Cause", ""}, {"Category", ""}, {"Time", u.name}, {"Share of step", "%"}});
  const auto& breakdown = step.at("breakdown");
  for (std::size_t i = 0; i < breakdown.size(); ++i) {
    const auto& b = breakdown[i];
    const double sec = b.at("seconds").get<double>();
    causes.emplace_back(sec * u.per_second, b.at("name").get<std::string>());
    t.add_row({Cell::of_text(b.at("name").get<std::string>()), Cell::of_text(b.at("category").get<std::string>()),
               scaled_cell(sec, u.per_second, fmt::format("{}/breakdown/{}/seconds", k, i)),
               Cell::of_number(100 * sec / step_s, {}, 3)});
  }
  std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  BarSeries series{"", {}};
  for (const auto& [value, name] : causes) {
    items.categories.push_back(name);
    series.values.push_back(value);
  }
  items.series.push_back(std::move(series));
  items.size = {960, std::max(200.0, 90 + 26.0 * static_cast<double>(breakdown.size()))};
  s.chart(bar_chart(items));
  t.caption(fmt::format("Sums to the step time, {} {}.", display_number(step_s * u.per_second), u.name));
  s.table(t);
}

// Which compute was priced from kernels measured on the GPU and which from the roofline fallback (issue 41).
void add_kernel_pricing(Report& report, const nlohmann::json& step, const std::string& k) {
  if (!step.contains("compute_priced_from_measurements")) return;
  const auto& priced = step.at("compute_priced_from_measurements");
  if (priced.empty()) return;
  Section& s = report.add_section("kernel-pricing", "Compute priced from measured kernels");
  const double share = num(step, "measured_compute_share");
  s.paragraph(fmt::format("{} of the critical rank's compute time was priced from kernel latencies measured on this "
                          "GPU type (per shape, interpolated in log space); the rest from the roofline: datasheet "
                          "peak times a sourced efficiency, marked \"roofline, not measured\" in the provenance.",
                          pct(share)));
  const double step_s = num(step, "step_time_s");
  const TimeUnit u = time_unit(step_s);
  BarChart c;
  c.title = "Compute time by op class: measured vs roofline";
  c.category_label = "";
  c.value_axis = {"Time", u.name, false};
  c.layout = BarLayout::kStacked;
  c.orientation = Orientation::kHorizontal;
  BarSeries measured{"measured", {}}, roofline{"roofline", {}};
  Table t({{"Op class", ""}, {"Compute time", u.name}, {"Priced from measurements", u.name}, {"Measured share", "%"}});
  for (const auto& [cat, v] : priced.items()) {
    const double sec = num(v, "seconds"), m = num(v, "measured_s");
    c.categories.push_back(cat);
    measured.values.push_back(m * u.per_second);
    roofline.values.push_back((sec - m) * u.per_second);
    const auto key = fmt::format("{}/compute_priced_from_measurements/{}/", k, cat);
    t.add_row({Cell::of_text(cat), scaled_cell(sec, u.per_second, key + "seconds"),
               scaled_cell(m, u.per_second, key + "measured_s"), scaled_cell(num(v, "measured_share"), 100, key + "measured_share", 3)});
  }
  c.series = {std::move(measured), std::move(roofline)};
  c.size = {960, std::max(200.0, 90 + 26.0 * static_cast<double>(c.categories.size()))};
  s.chart(bar_chart(c));
  t.caption(fmt::format("All op classes together: {} measured.", pct(share)));
  s.table(t);
}

void add_memory(Report& report, const nlohmann::json& step, const std::string& k) {
  Section& s = report.add_section("memory", "Memory per GPU");
  const double hbm = num(step, "hbm_bytes"), used = num(step, "memory_bytes_per_gpu");
  s.paragraph(fmt::format("Most loaded pipeline rank. {} of {} GiB HBM used: {}.", display_number(used / kGiB),
                          display_number(hbm / kGiB),
                          step.at("fits_in_memory").get<bool>()
                              ? fmt::format("{} GiB headroom", display_number((hbm - used) / kGiB))
                              : fmt::format("DOES NOT FIT, {} GiB over", display_number((used - hbm) / kGiB))));
  BarChart c;
  c.title = "Memory per GPU by category";
  c.category_label = "";
  c.categories = {"most loaded GPU"};
  c.value_axis = {"Memory", "GiB", false};
  c.layout = BarLayout::kStacked;
  c.orientation = Orientation::kHorizontal;
  c.references = {{"HBM", hbm / kGiB}};
  c.size = {960, 190};
  Table t({{"Category", ""}, {"Bytes per GPU", "GiB"}, {"Share of HBM", "%"}});
  const auto& mem = step.at("memory_per_gpu");
  for (std::size_t i = 0; i < mem.size(); ++i) {
    const double b = mem[i].at("bytes").get<double>();
    c.series.push_back({mem[i].at("name").get<std::string>(), {b / kGiB}});
    t.add_row({Cell::of_text(mem[i].at("name").get<std::string>()),
               scaled_cell(b, 1 / kGiB, fmt::format("{}/memory_per_gpu/{}/bytes", k, i)), Cell::of_number(100 * b / hbm, {}, 3)});
  }
  t.add_row({Cell::of_text("total"), scaled_cell(used, 1 / kGiB, k + "/memory_bytes_per_gpu"),
             Cell::of_number(100 * used / hbm, {}, 3)});
  t.add_row({Cell::of_text("HBM capacity"), scaled_cell(hbm, 1 / kGiB, k + "/hbm_bytes"), Cell::of_number(100, {}, 3)});
  if (!c.series.empty()) s.chart(bar_chart(c), "Dashed line: the GPU's HBM capacity.");
  s.table(t);
}

void add_links(Report& report, const nlohmann::json& step, const std::string& k) {
  const auto& links = step.at("links");
  if (links.empty()) return;
  Section& s = report.add_section("links", "Network: bytes and utilisation per link class");
  s.paragraph("Bytes every link of a class carried in one step (whole cluster), and the mean utilisation of the "
              "class's links over the step: those bytes over the class's capacity times the step time (k3sim checks "
              "that it never passes 100 %).");
  BarChart bytes, util;
  bytes.title = "Bytes per step per link class";
  bytes.category_label = "Link class";
  bytes.value_axis = {"Bytes", "TB", true};
  util.title = "Mean utilisation of the class's links";
  util.category_label = "Link class";
  util.value_axis = {"Utilisation", "%", false};
  BarSeries b{"", {}}, u{"", {}};
  Table t({{"Link class", ""}, {"Bytes per step", "TB"}, {"Mean utilisation", "%"}});
  for (std::size_t i = 0; i < links.size(); ++i) {
    const auto& l = links[i];
    const double by = l.at("bytes").get<double>(), ut = l.at("mean_utilisation").get<double>();
    if (by > 0) {  // a log axis has no zero; idle classes stay in the table
      bytes.categories.push_back(l.at("link_class").get<std::string>());
      b.values.push_back(by / kTB);
    }
    util.categories.push_back(l.at("link_class").get<std::string>());
    u.values.push_back(100 * ut);
    t.add_row({Cell::of_text(l.at("link_class").get<std::string>()),
               scaled_cell(by, 1 / kTB, fmt::format("{}/links/{}/bytes", k, i)),
               scaled_cell(ut, 100, fmt::format("{}/links/{}/mean_utilisation", k, i), 3)});
  }
  bytes.series.push_back(std::move(b));
  util.series.push_back(std::move(u));
  bytes.size = util.size = {960, 300};
  if (!bytes.categories.empty()) s.chart(bar_chart(bytes), "Log scale. 1 TB = 10^12 B. Classes that carried nothing are left out.");
  s.chart(bar_chart(util));
  s.table(t);
}

void add_placement(Report& report, const nlohmann::json& step, const std::string& k) {
  const auto& layout = step.at("layout");
  if (!layout.contains("placement") || layout.at("placement").empty()) return;
  Section& s = report.add_section("placement", "Rank placement");
  s.paragraph(fmt::format("How many NVLink domains ({} GPUs each) one group of each kind spans: a group inside one "
                          "domain communicates over NVLink only, one across several crosses the scale-out fabric. "
                          "Recompute: {}.",
                          layout.at("gpus_per_nvlink_domain").get<int>(), layout.at("recompute").get<std::string>()));
  Table t({{"Group", ""}, {"GPUs per group", ""}, {"NVLink domains, fewest", ""}, {"NVLink domains, most", ""}});
  const auto& placement = layout.at("placement");
  for (std::size_t i = 0; i < placement.size(); ++i) {
    const auto& p = placement[i];
    const auto key = fmt::format("{}/layout/placement/{}/", k, i);
    t.add_row({Cell::of_text(p.at("group").get<std::string>()), Cell::of_number(num(p, "size"), key + "size"),
               Cell::of_number(num(p, "min_nvlink_domains"), key + "min_nvlink_domains"),
               Cell::of_number(num(p, "max_nvlink_domains"), key + "max_nvlink_domains")});
  }
  s.table(t);
}

// Only where the scenario set GPU speeds (gpu_speed): the slowest GPU and each pipeline rank's pace.
void add_gpu_speeds(Report& report, const nlohmann::json& step, const std::string& k) {
  if (!step.contains("gpu_speed")) return;
  const auto& g = step.at("gpu_speed");
  Section& s = report.add_section("gpu-speeds", "GPU speeds");
  std::string how;
  if (num(g, "spread") > 0) {
    how = fmt::format("Each GPU's speed is drawn from a spread of {} of the median GPU (Sinha et al., SC22, measured 8 % "
                      "on average across GPUs of one SKU). ", pct(num(g, "spread")));
  }
  if (const double ranged = g.value("gpus_in_ranges", 0.0); ranged > 0) how += fmt::format("{} GPUs set by range. ", display_number(ranged));
  if (const int listed = g.at("listed_gpus").get<int>(); listed > 0) {
    how += fmt::format("{} GPU{} set by hand. ", listed, listed == 1 ? "" : "s");
  }
  s.paragraph(how + fmt::format("Speeds are over the kernel tables' GPU. The slowest is GPU {} at {}x. Each pipeline rank "
                                "runs its stage's slowest block, every GPU of it at its own speed: its passes wait for "
                                "that GPU at each collective, and the other blocks wait for it at the pipeline hand-offs "
                                "and the DP reductions.",
                                g.at("slowest_gpu").get<std::int64_t>(), display_number(num(g, "slowest_speed"))));
  Table t({{"Pipeline rank", ""}, {"Slowest GPU of its block", "x"}});
  const auto& ranks = g.at("rank_slowest_speed");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    t.add_row({Cell::of_text(std::to_string(i)),
               Cell::of_number(ranks[i].get<double>(), fmt::format("{}/gpu_speed/rank_slowest_speed/{}", k, i))});
  }
  s.table(t);
}

}  // namespace

std::vector<Card> step_cards(const nlohmann::json& step, const std::string& k) {
  std::vector<Card> cards;
  const double step_s = num(step, "step_time_s");
  cards.push_back({"Step time", step_s, "s", k + "/step_time_s",
                   fmt::format("{} micro-batches per pipeline", step.at("microbatches_per_pipeline").get<int>())});
  cards.push_back({"Throughput", num(step, "tokens_per_s"), "M tokens/s", k + "/tokens_per_s",
                   fmt::format("{} M tokens per step", display_number(num(step, "tokens_per_step") / 1e6)), 1e-6});
  cards.push_back({"Model FLOPs per GPU", num(step, "tflops_per_gpu"), "TFLOP/s", k + "/tflops_per_gpu",
                   fmt::format("{} GPUs", step.at("gpus").get<std::int64_t>())});
  std::string mfu_note = fmt::format("of {} TFLOP/s BF16", display_number(num(step, "peak_flops_per_s_bf16") / 1e12));
  if (num(step, "mfu_fp8") > 0) mfu_note += fmt::format("; {} of FP8 peak", pct(num(step, "mfu_fp8")));
  cards.push_back({"MFU", num(step, "mfu"), "%", k + "/mfu", mfu_note, 100});
  const double hbm = num(step, "hbm_bytes"), used = num(step, "memory_bytes_per_gpu");
  cards.push_back({"Memory per GPU", used, "GiB", k + "/memory_bytes_per_gpu",
                   step.at("fits_in_memory").get<bool>()
                       ? fmt::format("{} GiB headroom of {} GiB HBM", display_number((hbm - used) / kGiB),
                                     display_number(hbm / kGiB))
                       : fmt::format("DOES NOT FIT: {} GiB over {} GiB HBM", display_number((used - hbm) / kGiB),
                                     display_number(hbm / kGiB)),
                   1 / kGiB});
  if (step.contains("cost_per_trillion_tokens_usd")) {
    cards.push_back({"Cost per trillion tokens", num(step, "cost_per_trillion_tokens_usd"), "USD",
                     k + "/cost_per_trillion_tokens_usd",
                     fmt::format("{} GPU-hours", display_number(num(step, "gpu_hours_per_trillion_tokens")))});
  } else {
    cards.push_back({"GPU-hours per trillion tokens", num(step, "gpu_hours_per_trillion_tokens"), "GPU-h",
                     k + "/gpu_hours_per_trillion_tokens", "no price given (scenario key price_per_gpu_hour)"});
  }
  return cards;
}

void add_step_section(Report& report, const nlohmann::json& step, std::span<const train::TraceSpan> trace,
                      const std::string& key_prefix) {
  add_breakdown(report, step, key_prefix);
  add_kernel_pricing(report, step, key_prefix);
  add_uncertainty_section(report, step, key_prefix);
  if (!trace.empty()) {
    Section& s = report.add_section("timeline", "Pipeline timeline");
    s.paragraph("One step on representative pipeline ranks: forward (F), backward (B) and weight-gradient (W) "
                "passes, then the exposed data-parallel communication and the optimizer step. Each pass already "
                "includes its own expert all-to-alls (simulated inside the pass on the network).");
    const GanttChart g = step_gantt(trace);
    s.chart(gantt_chart(g), fmt::format("At most {} ranks shown, spread evenly; same-kind passes closer than half a "
                                        "pixel merged into one bar (its tooltip counts them).",
                                        kMaxGanttRanks));
  }
  add_memory(report, step, key_prefix);
  add_links(report, step, key_prefix);
  add_placement(report, step, key_prefix);
  add_gpu_speeds(report, step, key_prefix);
  add_goodput_section(report, step, key_prefix);
}

}  // namespace k3::reports
