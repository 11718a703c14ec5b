#pragma once
// `k3sim validate` as a report: predicted against published for every case, drawn from the command's JSON
// (every number keyed with its pointer, e.g. "/cases/3/predicted").
//
// JSON read: {"cases": [{"case", "group", "metric", "unit", "predicted", "published", "rel_error", "source",
//   "setup"}], "megatron_mean_abs_error", "assumptions": [...]}
#include <nlohmann/json.hpp>

#include <string>

#include "reports/report.hpp"

namespace k3::reports {

// Section "validation": signed error per case against a +-10% band, and the table of cases with sources.
void add_validation_section(Report& report, const nlohmann::json& validation);

// `k3sim validate --report path`. Throws core::InputError naming --report when the file cannot be written.
void write_validation_report(const std::string& path, const nlohmann::json& validation, RunInfo info);

}  // namespace k3::reports
