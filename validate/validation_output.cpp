// `k3sim validate`'s results as JSON, text and the Markdown table README carries.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "validate/validation.hpp"

namespace k3::validate {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

nlohmann::json discrepancy_json(const DiscrepancyFit& d) {
  return {{"sigma_log", d.sigma_log}, {"fitted_on", d.fitted_on}, {"pooled", d.pooled}};
}

// "0.137 (pooled: a, b)" or "0.137 (a, b)": the spread and the families it was fitted on.
std::string discrepancy_text(const DiscrepancyFit& d) {
  return fmt::format("{:.3f} ({}{})", d.sigma_log, d.pooled ? "pooled: " : "", fmt::join(d.fitted_on, ", "));
}

}  // namespace

nlohmann::json validation_to_json(const ValidationReport& report) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : report.cases) {
    cases.push_back({{"case", c.name},
                     {"group", c.group},
                     {"quantity", c.quantity},
                     {"metric", c.metric},
                     {"unit", c.unit},
                     {"predicted", c.predicted},
                     {"published", c.published},
                     {"rel_error", c.rel_error},
                     {"band", {{"p10", c.band_p10}, {"p50", c.centre}, {"p90", c.band_p90}}},
                     {"p50_rel_error", c.p50_rel_error},
                     {"in_band", c.in_band},
                     {"discrepancy", discrepancy_json(c.discrepancy)},
                     {"source", c.source},
                     {"setup", c.setup}});
    if (c.has_band) {
      cases.back()["mechanism_band"] = {{"p10", c.p10}, {"p50", c.p50}, {"p90", c.p90}, {"in_band", c.in_mechanism_band}};
    }
    if (c.has_memory) {
      cases.back()["memory"] = {
          {"bytes_per_gpu", c.memory_bytes}, {"hbm_bytes", c.hbm_bytes}, {"fits", c.memory_bytes <= c.hbm_bytes}};
    }
  }
  nlohmann::json families = nlohmann::json::array();
  for (const auto& f : report.families) {
    families.push_back({{"family", f.family},
                        {"quantity", f.quantity},
                        {"rows", f.rows},
                        {"in_band", f.in_band},
                        {"p50_error", {{"min", f.min_error}, {"max", f.max_error}, {"mean_abs", f.mean_abs_error}}},
                        {"mean_band_width", f.mean_band_width},
                        {"discrepancy", discrepancy_json(f.discrepancy)}});
  }
  return {{"cases", cases},
          {"families", families},
          {"megatron_mean_abs_error", report.megatron_mean_abs_error},
          {"coverage", {{"cases_with_band", report.cases_with_band},
                        {"cases_in_band", report.cases_in_band},
                        {"fraction", report.cases_with_band > 0
                                         ? static_cast<double>(report.cases_in_band) / report.cases_with_band
                                         : 0.0},
                        {"mean_band_width", report.mean_band_width}}},
          {"assumptions", report.assumptions}};
}

std::string validation_to_text(const ValidationReport& report) {
  std::string out = "families, worst first (each band's discrepancy fitted without its own family)\n";
  out += fmt::format("  {:<32} {:<21} {:>4} {:>18} {:>10} {:>8} {:>11}  {}\n", "family", "quantity", "rows",
                     "P50 error", "mean |err|", "in band", "band width", "discrepancy sigma (ln), fitted on");
  for (const auto& f : report.families) {
    out += fmt::format("  {:<32} {:<21} {:>4} {:>+7.1f}% .. {:>+6.1f}% {:>9.1f}% {:>4} of {:<2} {:>10.0f}%  {}\n",
                       f.family, f.quantity, f.rows, 100 * f.min_error, 100 * f.max_error, 100 * f.mean_abs_error,
                       f.in_band, f.rows, 100 * f.mean_band_width, discrepancy_text(f.discrepancy));
  }
  if (report.cases_with_band > 0) {
    out += fmt::format("coverage: {} of {} published values inside their P10..P90 band ({:.0f}%; an 80% band should "
                       "hold about 80%), mean band width {:.0f}% of P50\n\n",
                       report.cases_in_band, report.cases_with_band,
                       100.0 * report.cases_in_band / report.cases_with_band, 100 * report.mean_band_width);
  }
  // Columns as wide as their widest entry: Qwen3's case names run to a hundred characters.
  std::size_t name_w = 4, metric_w = 6, unit_w = 1;
  for (const auto& c : report.cases) {
    name_w = std::max(name_w, c.name.size());
    metric_w = std::max(metric_w, c.metric.size());
    unit_w = std::max(unit_w, c.unit.size());
  }
  const std::size_t value_w = 11 + unit_w;  // "  62650.49 tokens/s"
  out += fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>8}  {:>{}}  {:>9}  {}\n", "case", name_w, "metric", metric_w,
                     "predicted", value_w, "published", value_w, "error", "band P10 .. P90", 2 * value_w - unit_w + 3,
                     "P50 error", "in band");
  for (const auto& c : report.cases) {
    out += fmt::format("{:<{}}  {:<{}}  {:>10.2f} {:<{}}  {:>10.2f} {:<{}}  {:>+7.1f}%  {:>10.2f} .. {:>10.2f} {:<{}}  "
                       "{:>+8.1f}%  {}\n",
                       c.name, name_w, c.metric, metric_w, c.predicted, c.unit, unit_w, c.published, c.unit, unit_w,
                       100 * c.rel_error, c.band_p10, c.band_p90, c.unit, unit_w, 100 * c.p50_rel_error,
                       c.in_band ? "yes" : "no");
  }
  out += "\nband: the mechanism band (P10..P90 over the inputs' ranges; none with --samples 0) widened by the model "
         "discrepancy, ln(published / P50) of the other families' rows (validate/model_discrepancy.hpp)\n";
  // Every published training run ran, so it fit in its GPUs' memory: a row over HBM is the memory model's error.
  int training = 0, fit = 0;
  std::string over;
  for (const auto& c : report.cases) {
    if (!c.has_memory) continue;
    ++training;
    if (c.memory_bytes <= c.hbm_bytes) {
      ++fit;
    } else {
      over += fmt::format("  {}: {:.1f} of {:.1f} GiB\n", c.name, c.memory_bytes / kGiB, c.hbm_bytes / kGiB);
    }
  }
  if (training > 0) {
    out += fmt::format("\nmemory: {} of {} published training runs fit in HBM as simulated (the most loaded GPU){}\n{}",
                       fit, training, over.empty() ? "" : "; over:", over);
  }
  out += fmt::format("\nMegatron-LM SC21 Table 1: mean absolute error {:.1f}% (TF = TFLOP/s per GPU)\n",
                     100 * report.megatron_mean_abs_error);
  out += "\nsetups and sources\n";
  for (const auto& c : report.cases) out += fmt::format("  {}: {}; published: {}\n", c.name, c.setup, c.source);
  return out;
}

std::string families_to_markdown(const ValidationReport& report) {
  std::string out = "| family (published table), worst first | quantity | rows | error of P50 | mean abs. error | "
                    "inside P10..P90 | mean band width | discrepancy sigma of ln, fitted on |\n"
                    "|---|---|---|---|---|---|---|---|\n";
  for (const auto& f : report.families) {
    out += fmt::format("| {} | {} | {} | {:+.1f}% .. {:+.1f}% | {:.1f}% | {} of {} | {:.0f}% | {} |\n", f.family,
                       f.quantity, f.rows, 100 * f.min_error, 100 * f.max_error, 100 * f.mean_abs_error, f.in_band,
                       f.rows, 100 * f.mean_band_width, discrepancy_text(f.discrepancy));
  }
  out += fmt::format("\nCoverage: {} of {} published values inside their P10..P90 band ({:.0f}%), mean band width "
                     "{:.0f}% of P50.\n",
                     report.cases_in_band, report.cases_with_band,
                     report.cases_with_band > 0 ? 100.0 * report.cases_in_band / report.cases_with_band : 0.0,
                     100 * report.mean_band_width);
  return out;
}

}  // namespace k3::validate
