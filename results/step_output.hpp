#pragma once
// A StepResult as JSON (the `--json` contract and the report's data source), as a text summary with units,
// and as a Chrome/Perfetto trace (one track per stream per pipeline rank).
#include <nlohmann/json.hpp>

#include <string>

#include "sim/train/step_result.hpp"

namespace k3::results {

nlohmann::json step_to_json(const train::StepResult& r);
std::string step_to_text(const train::StepResult& r);
// Trace Event Format: complete events ("ph": "X") in microseconds, pid = pipeline rank, tid = stream.
nlohmann::json step_trace(const train::StepResult& r);

}  // namespace k3::results
