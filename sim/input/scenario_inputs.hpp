#pragma once
// The one way from a scenario to a step's typed inputs: parse it (with --set overrides), check the
// cluster against the size limits, load the model, build the topology and read the calibration profile.
// run, compare, sweep, validate and the benchmarks all come through here.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/cost/calibration_profile.hpp"
#include "model/model_spec.hpp"
#include "sim/input/scenario.hpp"
#include "topologies/topology.hpp"

namespace k3::input {

struct ScenarioInputs {
  input::Scenario scenario;
  model::ModelSpec model;
  std::shared_ptr<const topo::Topology> topology;
  std::optional<cost::CalibrationProfile> profile;
  const cost::CalibrationProfile* profile_or_null() const { return profile ? &*profile : nullptr; }
};

// `profile_flag` (from --profile) wins over the scenario's `profile` key. A profile must have been measured
// on the scenario's GPU type (core::InputError naming both devices, exit 2) unless `profile_any_device`
// (--profile-any-device) says to use it anyway.
ScenarioInputs load_scenario_inputs(const std::string& path, const std::vector<std::string>& sets,
                                    const std::string& profile_flag, bool profile_any_device = false);
// The same for an already parsed scenario.
ScenarioInputs resolve_scenario(input::Scenario scenario, const std::string& profile_flag,
                                bool profile_any_device = false);

}  // namespace k3::input
