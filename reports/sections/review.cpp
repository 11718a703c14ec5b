// The review report of `k3sim compare`: verdict first, then one section per review question.
#include "reports/sections/review.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reports/sections/goodput.hpp"
#include "reports/sections/kv.hpp"
#include "reports/sections/review_parts.hpp"
#include "reports/sections/step.hpp"
#include "reports/text.hpp"

namespace k3::reports {

namespace review {

std::vector<VariantView> variant_views(const nlohmann::json& comparison) {
  std::vector<VariantView> out;
  const auto& variants = comparison.at("variants");
  for (std::size_t i = 0; i < variants.size(); ++i)
    out.push_back({variants[i].at("name").get<std::string>(), &variants[i], fmt::format("/variants/{}", i)});
  K3SIM_ASSERT(!out.empty(), "a comparison needs at least one variant");
  return out;
}

std::string family_of(const std::string& category) {
  if (category == "compute" || category == "communication") return category;
  return "other";
}

CauseColours::CauseColours(const std::vector<VariantView>& variants) {
  std::vector<std::size_t> used_per_family(3, 0);
  for (const auto& v : variants) {
    for (const auto& b : v.result().at("breakdown")) {
      const auto name = b.at("name").get<std::string>();
      if (std::find(names_.begin(), names_.end(), name) != names_.end()) continue;
      const auto category = b.at("category").get<std::string>();
      const auto family = family_of(category);
      const std::size_t f = family == "compute" ? 0 : family == "communication" ? 1 : 2;
      names_.push_back(name);
      categories_.push_back(category);
      colours_.push_back(detail::family_colour(family, used_per_family[f]++));
    }
  }
}

const std::string& CauseColours::operator()(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  K3SIM_ASSERT(it != names_.end(), "no colour for breakdown entry '" + name + "'");
  return colours_[static_cast<std::size_t>(it - names_.begin())];
}

const std::string& CauseColours::category(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  K3SIM_ASSERT(it != names_.end(), "no category for breakdown entry '" + name + "'");
  return categories_[static_cast<std::size_t>(it - names_.begin())];
}

std::string seconds_text(double s) {
  const double a = std::fabs(s);
  if (a >= 100) return fmt::format("{:.0f} s", s);
  if (a >= 10) return fmt::format("{:.1f} s", s);
  if (a >= 1) return fmt::format("{:.2f} s", s);
  if (a >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} \u00b5s", s * 1e6);
}

std::string signed_seconds_text(double s) { return (s > 0 ? "+" : s < 0 ? "\u2212" : "") + seconds_text(std::fabs(s)); }

std::string bytes_text(double bytes) {
  static const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  double v = std::fabs(bytes);
  int u = 0;
  while (v >= 1000 && u < 6) {
    v /= 1000;
    ++u;
  }
  return fmt::format("{}{:.3g} {}", bytes < 0 ? "\u2212" : "", v, kUnits[u]);
}

std::string usd_text(double usd) {
  if (std::fabs(usd) >= 1e6) return fmt::format("${:.3g} M", usd / 1e6);
  if (std::fabs(usd) >= 1e3) return fmt::format("${:.3g} k", usd / 1e3);
  return fmt::format("${:.3g}", usd);
}

std::string percent_text(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

}  // namespace review

namespace {

using review::VariantView;

void add_kv(Report& report, const nlohmann::json& review) {
  Section& s = report.add_section("kv", "KV cache and state: how many sequences fit?");
  fill_kv_section(s, review.at("kv"), "/review/kv");
}

void add_timeline(Report& report, std::span<const train::TraceSpan> trace, const VariantView& first) {
  if (trace.empty()) return;
  Section& s = report.add_section("timeline", "Pipeline timeline of one step: where do the ranks wait?");
  s.paragraph(fmt::format("{}: forward (F), backward (B), weight-gradient (W) and, under DualPipe, overlapped F&B "
                          "passes on representative pipeline ranks, then the exposed data-parallel communication and "
                          "the optimizer. Each pass includes its own expert all-to-alls; `k3sim run --trace` writes "
                          "the per-GPU, per-op view of one micro-batch per pass kind for Perfetto.",
                          first.name));
  s.chart(gantt_chart(step_gantt(trace)),
          fmt::format("Look at the gaps: white space on a rank is pipeline bubble. At most {} ranks shown; same-kind "
                      "passes closer than half a pixel merged into one bar (its tooltip counts them).",
                      kMaxGanttRanks));
}

}  // namespace

void write_compare_report(const std::string& path, const nlohmann::json& comparison,
                          std::span<const train::TraceSpan> trace, const RunInfo& info) {
  const auto variants = review::variant_views(comparison);
  std::string names;
  for (const auto& v : variants) names += (names.empty() ? "" : " against ") + v.name;
  Report report("Review: " + names, "Which variant wins, by how much, why, and how sure we are.");
  report.set_header_facts(info);
  const review::CauseColours colours(variants);
  review::add_verdict(report, comparison, variants);
  review::add_step_time(report, variants, colours);
  const bool has_review = comparison.contains("review");
  if (has_review) {
    review::add_all_to_all(report, comparison.at("review"));
    review::add_balancing(report, comparison.at("review"), variants);
    add_kv(report, comparison.at("review"));
  }
  review::add_memory(report, variants);
  std::vector<std::tuple<std::string, const nlohmann::json*, std::string>> steps;
  for (const auto& v : variants) steps.emplace_back(v.name, &v.result(), v.pointer);
  add_goodput_comparison(report, steps);
  add_timeline(report, trace, variants.front());
  review::add_assumptions(report, variants);
  RunInfo run = info;
  run.assumptions.clear();  // the assumptions section lists them, grouped
  report.add_run_info(run);
  report.write_html(path);
}

}  // namespace k3::reports
