#pragma once
// The uncertainty band and the sensitivity ranking of a step (sim/train/step_band.hpp) as JSON (keys
// "band", "sensitivity" and "provenance" of `k3sim run --json`) and as text.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "results/model_discrepancy.hpp"
#include "sim/train/step_band.hpp"

namespace k3::results {

nlohmann::json quantiles_json(const train::Quantiles& q);
nlohmann::json provenance_json(const std::vector<core::ProvenanceEntry>& entries);
nlohmann::json sensitivity_json(const std::vector<train::Sensitivity>& ranking);
// {"samples", "runs", "method", "step_time_s": {p10, p50, p90}, "tokens_per_s", "mfu", "memory_bytes_per_gpu"}.
nlohmann::json band_json(const train::StepBand& band);
// Adds "band", "sensitivity" (by factor) and, when ranked, "sensitivity_by_entry" to a step_to_json object
// (nothing when the band was not run).
void add_band(nlohmann::json& step, const train::StepBand& band);
// The band and the top `top` entries of the ranking, with units; "" when the band was not run.
std::string band_to_text(const train::StepBand& band, std::size_t top = 8);

// The band widened by the model discrepancy of a training step (model_discrepancy.hpp), read from `table`: adds
// band.with_model_discrepancy (step time, throughput and MFU quantiles, the spread and what it was fitted on);
// nothing when the band was not run.
void add_model_discrepancy(nlohmann::json& step, const train::StepBand& band, const QuantityDiscrepancy& d,
                           const std::string& table);
std::string model_discrepancy_to_text(const train::StepBand& band, const QuantityDiscrepancy& d);

}  // namespace k3::results
