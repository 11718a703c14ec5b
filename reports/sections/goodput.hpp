#pragma once
// Section "goodput" of a run report (`k3sim run --goodput --report`): the whole run under interruptions, read
// from the "goodput" object of the step's --json (results::goodput_json): cards, where the run's time goes, the
// time lost per cause, and the effective training time against the checkpoint interval with Young's and Daly's.
#include <nlohmann/json.hpp>

#include <string>

#include "reports/report.hpp"

namespace k3::reports {

// Nothing when `step` has no "goodput".
void add_goodput_section(Report& report, const nlohmann::json& step, const std::string& key_prefix = "");

}  // namespace k3::reports
