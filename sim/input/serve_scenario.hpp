#pragma once
// A serving scenario (`k3sim serve`, documented key by key in scenarios/README.md, "Serving scenarios"):
// the model, cluster and profile as a training scenario names them, and a serve::ServeSpec. Parsed once,
// resolved once (the model, the topology, the cost model's inputs) like a training scenario.
#include <string>
#include <vector>

#include "core/error.hpp"
#include "sim/input/scenario.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/serve/serve_spec.hpp"

namespace k3::input {

// Where an instance type's shape keys sit, for the checks that need the topology's GPUs per node.
struct InstanceKeyLines {
  bool decode = false;
  core::InputLocation attention_dp, moe_tp, pp, weight_offload;  // the key, or the instance's map if left out
};

struct ServeScenario {
  Scenario base;           // model, cluster, profile and source; its training settings are unused
  serve::ServeSpec spec;
  std::string yaml_text;   // after overrides
  std::vector<InstanceKeyLines> instance_lines;
};

// Whether the YAML file is a serving scenario (it has a top-level `deployment:`); InputError when it cannot be read.
bool is_serve_scenario(const std::string& path);

ServeScenario parse_serve_scenario(const std::string& yaml_text, const std::string& source_name,
                                   const std::vector<Override>& overrides = {});
ServeScenario load_serve_scenario(const std::string& path, const std::vector<Override>& overrides = {});

struct ServeInputs {
  ScenarioInputs inputs;   // model, topology, profile
  serve::ServeSpec spec;
};
// Resolves the model, topology and profile, and checks each instance type against them (pp divides its GPUs and is
// at most the model's layers; attention DP and MoE TP divide a stage's GPUs); InputError at the key's line
// otherwise.
ServeInputs resolve_serve_scenario(ServeScenario scenario, const std::string& profile_flag = {});
ServeInputs load_serve_inputs(const std::string& path, const std::vector<std::string>& sets,
                              const std::string& profile_flag = {});

}  // namespace k3::input
