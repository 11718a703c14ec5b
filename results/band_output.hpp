#pragma once
// The uncertainty band and the sensitivity ranking of a step (sim/train/step_band.hpp) as JSON (keys
// "band", "sensitivity" and "provenance" of `k3sim run --json`) and as text.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sim/train/step_band.hpp"

namespace k3::results {

nlohmann::json quantiles_json(const train::Quantiles& q);
nlohmann::json provenance_json(const std::vector<core::ProvenanceEntry>& entries);
nlohmann::json sensitivity_json(const std::vector<train::Sensitivity>& ranking);
// {"samples", "runs", "method", "step_time_s": {p10, p50, p90}, "tokens_per_s", "mfu", "memory_bytes_per_gpu"}.
nlohmann::json band_json(const train::StepBand& band);
// Adds "band" and "sensitivity" to a step_to_json object (nothing when the band was not run).
void add_band(nlohmann::json& step, const train::StepBand& band);
// The band and the top `top` entries of the ranking, with units; "" when the band was not run.
std::string band_to_text(const train::StepBand& band, std::size_t top = 8);

}  // namespace k3::results
