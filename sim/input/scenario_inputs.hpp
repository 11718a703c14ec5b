#pragma once
// Loads what a scenario refers to (model, topology, calibration profile), shared by run, compare and sweep.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/cost/calibration_profile.hpp"
#include "model/model_spec.hpp"
#include "sim/plan/scenario.hpp"
#include "topologies/topology.hpp"

namespace k3::cli {

struct ScenarioInputs {
  plan::Scenario scenario;
  model::ModelSpec model;
  std::shared_ptr<const topo::Topology> topology;
  std::optional<cost::CalibrationProfile> profile;
};

// `profile_flag` (from --profile) wins over the scenario's `profile` key.
ScenarioInputs load_scenario_inputs(const std::string& path, const std::vector<std::string>& sets,
                                    const std::string& profile_flag);
// The same for an already parsed scenario.
ScenarioInputs resolve_scenario(plan::Scenario scenario, const std::string& profile_flag);

}  // namespace k3::cli
