// Every shipped scenario's whole step on the analytical network within 3% of the flow network: sweeps,
// `plan` and the uncertainty bands run on the analytical model, so it must rank layouts as the flow model does.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_simulator.hpp"

namespace k3 {
namespace {

double step_time(const std::string& file, const std::string& network) {
  auto scenario = input::load_scenario(std::string(K3SIM_SOURCE_DIR) + "/scenarios/" + file, {{"network", network}});
  auto in = input::resolve_scenario(std::move(scenario), "");
  train::StepOptions opt;
  opt.trace = false;
  return train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt).step_time_s;
}

class ShippedScenario : public testing::TestWithParam<const char*> {};

TEST_P(ShippedScenario, AnalyticalStepIsWithinThreePercentOfFlow) {
  const double analytical = step_time(GetParam(), "analytical");
  const double flow = step_time(GetParam(), "flow");
  EXPECT_LT(std::abs(analytical - flow) / flow, 0.03) << "analytical " << analytical << " s, flow " << flow << " s";
}

// The variants file runs its base as k3-h200-2048.yaml does.
INSTANTIATE_TEST_SUITE_P(Scenarios, ShippedScenario,
                         testing::Values("deepseek-v3-h800-2048.yaml", "k3-h200-2048.yaml", "k3-448-h200-2048.yaml",
                                         "megatron-sc21-selene.yaml", "qwen3-235b-h100-256.yaml"),
                         [](const testing::TestParamInfo<const char*>& p) {
                           std::string name = p.param;
                           name = name.substr(0, name.find('.'));
                           for (auto& c : name) c = (c == '-') ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace k3
