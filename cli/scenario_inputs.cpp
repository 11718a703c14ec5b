#include "cli/scenario_inputs.hpp"

#include "sim/core/error.hpp"

namespace k3::cli {

ScenarioInputs resolve_scenario(plan::Scenario scenario, const std::string& profile_flag) {
  ScenarioInputs in;
  in.model = model::load_model(scenario.model);
  std::vector<std::string> overrides;
  if (scenario.nodes) overrides.push_back("nodes=" + std::to_string(*scenario.nodes));
  in.topology = std::make_shared<const topo::Topology>(topo::load_topology(scenario.topology, overrides));
  const std::string profile = profile_flag.empty() ? scenario.profile : profile_flag;
  if (!profile.empty()) in.profile = cost::CalibrationProfile::load(profile);
  in.scenario = std::move(scenario);
  return in;
}

ScenarioInputs load_scenario_inputs(const std::string& path, const std::vector<std::string>& sets,
                                    const std::string& profile_flag) {
  std::vector<plan::Override> overrides;
  for (const auto& s : sets) overrides.push_back(plan::parse_override(s));
  return resolve_scenario(plan::load_scenario(path, overrides), profile_flag);
}

}  // namespace k3::cli
