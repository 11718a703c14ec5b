#pragma once
// Section "goodput" of a run report (`k3sim run --goodput --report`): the whole run under interruptions, read
// from the "goodput" object of the step's --json (results::goodput_json): cards, where the run's time goes, the
// time lost per cause, and the effective training time against the checkpoint interval with Young's and Daly's.
#include <nlohmann/json.hpp>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "reports/report.hpp"

namespace k3::reports {

// Nothing when `step` has no "goodput".
void add_goodput_section(Report& report, const nlohmann::json& step, const std::string& key_prefix = "");

// Section "goodput" of the compare review (`k3sim compare --goodput`): each variant's effective training time and
// goodput, and the run time each cause costs it, side by side. `steps`: (name, the variant's step JSON, its JSON
// pointer); nothing when no variant has "goodput".
void add_goodput_comparison(Report& report,
                            const std::vector<std::tuple<std::string, const nlohmann::json*, std::string>>& steps);

}  // namespace k3::reports
