#pragma once
// A whole run's goodput (sim/reliability/goodput.hpp) as JSON (key "goodput" of `k3sim run --goodput --json`)
// and as text: the band over replications, the checkpoint interval against Young's and Daly's, the time lost
// per cause, and which numbers were inputs and which predicted.
#include <nlohmann/json.hpp>

#include <string>

#include "sim/reliability/goodput.hpp"

namespace k3::results {

nlohmann::json goodput_json(const reliability::GoodputResult& g);
std::string goodput_to_text(const reliability::GoodputResult& g);

}  // namespace k3::results
