#pragma once
// Internal to the review report (review.hpp): one function per section, each reading compare's JSON.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "reports/charts/svg_canvas.hpp"  // family_colour
#include "reports/report.hpp"
#include "reports/sections/json_fields.hpp"  // kGiB

namespace k3::reports::review {

// One compared variant: its entry of "variants" and where that entry sits in the --json output.
struct VariantView {
  std::string name;
  const nlohmann::json* entry = nullptr;  // {"name", "result", "memory_headroom_bytes_per_gpu", "breakdown_s", ...}
  std::string pointer;                    // "/variants/1"
  const nlohmann::json& result() const { return entry->at("result"); }
  double step_s() const { return result().at("step_time_s").get<double>(); }
};
std::vector<VariantView> variant_views(const nlohmann::json& comparison);

// Family of a breakdown entry's category for colouring: "compute", "communication", or the category.
std::string family_of(const std::string& category);
// Distinct colour per breakdown name, shades of its family's hue, stable across the report's charts.
class CauseColours {
 public:
  explicit CauseColours(const std::vector<VariantView>& variants);
  const std::string& operator()(const std::string& name) const;
  const std::string& category(const std::string& name) const;

 private:
  std::vector<std::string> names_, categories_, colours_;
};

// "42.6 s", "1.48 M tokens/s", "1.51 PB": value with a unit prefix and sensible digits.
std::string seconds_text(double s);
std::string bytes_text(double bytes);
std::string usd_text(double usd);
std::string signed_seconds_text(double s);
std::string percent_text(double fraction);

void add_verdict(Report& report, const nlohmann::json& comparison, const std::vector<VariantView>& variants);
void add_step_time(Report& report, const std::vector<VariantView>& variants, const CauseColours& colours);
void add_all_to_all(Report& report, const nlohmann::json& review);
void add_balancing(Report& report, const nlohmann::json& review, const std::vector<VariantView>& variants);
void add_memory(Report& report, const std::vector<VariantView>& variants);
void add_assumptions(Report& report, const std::vector<VariantView>& variants);

}  // namespace k3::reports::review
