#include "sim/input/scenario_inputs.hpp"

#include "core/error.hpp"
#include "sim/input/size_limits.hpp"
#include "topologies/load.hpp"

namespace k3::input {

ScenarioInputs resolve_scenario(input::Scenario scenario, const std::string& profile_flag, bool profile_any_device) {
  ScenarioInputs in;
  in.model = model::load_model(scenario.model);
  std::vector<std::string> overrides;
  if (scenario.nodes) overrides.push_back("nodes=" + std::to_string(*scenario.nodes));
  if (scenario.radix) overrides.push_back("fabric.radix=" + std::to_string(*scenario.radix));
  // Refuse a cluster too large to simulate before building its topology (that alone takes gigabytes).
  const auto cluster = topo::load_cluster_spec(scenario.topology, overrides);
  input::check_size_limits(scenario, static_cast<std::int64_t>(cluster.nodes) * cluster.node.gpus);
  in.topology = std::make_shared<const topo::Topology>(topo::build_cluster(cluster));
  const std::string profile = profile_flag.empty() ? scenario.profile : profile_flag;
  if (!profile.empty()) {
    in.profile = cost::CalibrationProfile::load(profile);
    if (!profile_any_device) cost::check_profile_device(*in.profile, in.topology->gpu_type().name, profile);
  }
  in.scenario = std::move(scenario);
  return in;
}

ScenarioInputs load_scenario_inputs(const std::string& path, const std::vector<std::string>& sets,
                                    const std::string& profile_flag, bool profile_any_device) {
  std::vector<input::Override> overrides;
  for (const auto& s : sets) overrides.push_back(input::parse_override(s));
  return resolve_scenario(input::load_scenario(path, overrides), profile_flag, profile_any_device);
}

}  // namespace k3::input
