#include <gtest/gtest.h>

#include <string>

#include "results/step_output.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_simulator.hpp"
#include "tests/support/trace_nesting.hpp"

TEST(TraceTracks, EveryShippedTrainingScenarioTracesNestOnEveryTrack) {
  // As `k3sim run SCENARIO --trace` writes them, with the per-op view of the traced passes.
  for (const char* name : {"deepseek-v3-h800-2048", "deepseek-v3-gb200-256", "gpt-175b-a100-256", "k3-448-h200-2048",
                           "k3-h200-2048", "megatron-sc21-selene", "qwen3-235b-h100-256"}) {
    SCOPED_TRACE(name);
    const auto in = k3::input::load_scenario_inputs(std::string(K3SIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml", {}, "");
    k3::train::StepOptions opt;
    opt.op_trace = true;
    opt.per_layer = false;
    const auto r = k3::train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
    const auto trace = nlohmann::json::parse(k3::results::step_trace(r).dump());
    const auto faults = k3::test::nesting_faults(trace);
    EXPECT_TRUE(faults.empty()) << faults.size() << " faults, the first: " << faults.front();
  }
}
