// Host profiles as the simulator reads them: every figure derived in the comments from the JSON written here.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/text_file.hpp"
#include "sim/cost/host_profile.hpp"
#include "sim/cost/host_trace.hpp"

namespace k3::cost {
namespace {

nlohmann::json module(const std::string& name, int occurrences, int launches, double span_us, double device_wait_us,
                      double launch_api_us) {
  return {{"name", name},           {"occurrences", occurrences}, {"launches", launches},
          {"span_us", span_us},     {"device_wait_us", device_wait_us}, {"sync_api_us", 0.0},
          {"launch_api_us", launch_api_us}};
}

// Every scope's F and B, attn also W; one module the simulator does not know (ignored).
nlohmann::json hand_profile() {
  nlohmann::json modules = nlohmann::json::array();
  modules.push_back(module("attn(F)", 2, 20, 1000, 200, 40));  // (1000 - 200) / 2 = 400 us; 40 / 20 = 2 us a launch
  modules.push_back(module("attn(B)", 2, 30, 900, 0, 90));
  modules.push_back(module("attn(W)", 2, 4, 100, 0, 8));
  modules.push_back(module("mlp(F)", 2, 10, 300, 0, 30));
  modules.push_back(module("mlp(B)", 2, 16, 500, 0, 32));
  modules.push_back(module("dispatch(F)", 2, 6, 5000, 4800, 12));  // 100 us a run besides the 2.4 ms waits
  modules.push_back(module("dispatch(B)", 2, 4, 80, 0, 8));
  modules.push_back(module("combine(F)", 2, 4, 60, 0, 8));
  modules.push_back(module("combine(B)", 2, 6, 120, 0, 12));
  modules.push_back(module("optimizer", 1, 100, 7000, 0, 300));
  return {{"kind", "host_trace_profile"}, {"source", "hand.json"}, {"modules", modules}};
}

TEST(HostProfile, PerOccurrenceHostTimeAndGraphLaunchFromTheImportedModules) {
  const auto p = HostProfile::from_json(hand_profile(), "hand.json");
  EXPECT_EQ(p.source(), "hand.json");
  // attn(F): 20 launches over 2 runs = 10 kernels; (1000 - 200 waiting) / 2 = 400 us of host a run; a captured
  // run costs one launch call, 40 / 20 = 2 us.
  const auto& attn = p.cost(HostModule::attention, HostPhase::forward);
  EXPECT_TRUE(attn.measured);
  EXPECT_EQ(attn.kernels, 10);
  EXPECT_EQ(p.per_occurrence(HostModule::attention, HostPhase::forward, false), core::SimTime::from_seconds(400e-6));
  EXPECT_EQ(p.per_occurrence(HostModule::attention, HostPhase::forward, true), core::SimTime::from_seconds(2e-6));
  // dispatch(F): the 2.4 ms it waited on the device per run are not host work: (5000 - 4800) / 2 = 100 us.
  EXPECT_EQ(p.per_occurrence(HostModule::dispatch, HostPhase::forward, false), core::SimTime::from_seconds(100e-6));
  // mlp has no W module: nothing is charged for it (its weight gradients are in B).
  EXPECT_FALSE(p.cost(HostModule::mlp, HostPhase::weight).measured);
  EXPECT_EQ(p.per_occurrence(HostModule::mlp, HostPhase::weight, false), core::SimTime::zero());
}

TEST(HostProfile, AMissingModuleIsNamedWithWhatIsNeeded) {
  auto j = hand_profile();
  j["modules"].erase(4);  // mlp(B)
  try {
    (void)HostProfile::from_json(j, "hand.json");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, "hand.json");
    EXPECT_EQ(e.where().key, "modules");
    EXPECT_NE(e.problem().find("mlp(B)"), std::string::npos) << e.problem();
  }
  auto k = hand_profile();
  k["kind"] = "calibration";
  EXPECT_THROW((void)HostProfile::from_json(k, "hand.json"), core::InputError);
}

TEST(HostProfile, TheShippedProfileIsWhatTheImporterReadsFromDeepSeekV3sTrace) {
  const std::string trace = std::string(K3SIM_SOURCE_DIR) + "/../shared/calibration/traces/deepseek-v3-train-h800.json";
  const std::string shipped = shipped_host_profile("deepseek-v3-h800");
  ASSERT_FALSE(shipped.empty());
  if (!core::path_exists(trace)) GTEST_SKIP() << "no trace at " << trace << " (shared/ is laid beside the checkout in CI)";
  const auto imported = to_json(import_host_trace(core::read_json_file(trace, "a trace"), trace, HostTraceOptions{}));
  EXPECT_EQ(imported.at("modules"), core::read_json_file(shipped, "a host profile").at("modules"));
  // What the importer prints for it: attn(F) 69 kernels a run at 45.82 us of host each, 3.16 ms a run.
  const auto p = HostProfile::load(shipped);
  EXPECT_EQ(p.cost(HostModule::attention, HostPhase::forward).kernels, 69);
  EXPECT_NEAR(p.per_occurrence(HostModule::attention, HostPhase::forward, false).seconds(), 69 * 45.82e-6, 1e-7);
}

}  // namespace
}  // namespace k3::cost
