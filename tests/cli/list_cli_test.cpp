// `k3sim list` prints the registries themselves: what it lists is what the parsers accept.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_k3sim.hpp"

using k3::test::run_k3sim;

TEST(ListCli, NetworksAndSchedulesAreTheRegisteredEntries) {
  const auto r = run_k3sim("list --json");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // Two network models (sim/net/network_registry.cpp), flow first (the default), each with a description.
  ASSERT_EQ(j["networks"].size(), 2u);
  EXPECT_EQ(j["networks"][0]["name"], "flow");
  EXPECT_EQ(j["networks"][1]["name"], "analytical");
  for (const auto& e : j["networks"]) EXPECT_FALSE(e["description"].get<std::string>().empty());
  // Four schedules (sim/parallel/schedule_registry.cpp), five collective algorithms (deepep-ll the fifth), eight GPU types
  // (topologies/gpu_types.yaml: shared/validation/hardware.csv's six, H20 and GB300-B300), the seven model and seven
  // topology presets.
  EXPECT_EQ(j["schedules"].size(), 4u);
  EXPECT_EQ(j["collectives"].size(), 5u);
  EXPECT_EQ(j["gpus"].size(), 8u);
  EXPECT_EQ(j["models"].size(), 7u);
  EXPECT_EQ(j["topologies"].size(), 7u);
  // The config.json families (model/hf_config.cpp), each described; qwen3_next and minimax_m2 the last two.
  ASSERT_EQ(j["families"].size(), 13u);
  EXPECT_EQ(j["families"][11]["name"], "qwen3_next");
  EXPECT_EQ(j["families"][12]["name"], "minimax_m2");
  for (const auto& e : j["families"]) EXPECT_FALSE(e["description"].get<std::string>().empty()) << e["name"];
}

TEST(ListCli, EveryListedNameIsAccepted) {
  // Each listed network and schedule runs through the scenario parser (a dry `run` fails later, on the
  // layout, but never on the name).
  const auto j = nlohmann::json::parse(run_k3sim("list --json").out);
  for (const auto& e : j["networks"]) {
    const auto r = run_k3sim("run scenarios/k3-h200-2048.yaml --set network=" + e["name"].get<std::string>() +
                             " --set parallel.pp=0");
    EXPECT_EQ(r.err.find("unknown value"), std::string::npos) << r.err;
  }
  const auto bad = run_k3sim("run scenarios/k3-h200-2048.yaml --set parallel.schedule=gpipe");
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("1f1b, interleaved, dualpipe or dualpipev"), std::string::npos) << bad.err;
}

TEST(ListCli, OneKindAndAnUnknownKind) {
  const auto r = run_k3sim("list schedules");
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_NE(r.out.find("dualpipe"), std::string::npos);
  EXPECT_EQ(r.out.find("analytical"), std::string::npos);  // networks are not listed
  // Serving's overlaps (scheduler.overlap), from their registry.
  const auto o = run_k3sim("list overlaps");
  EXPECT_EQ(o.exit_status, 0);
  EXPECT_NE(o.out.find("combine_with_down_gemm"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("shared_experts_with_dispatch"), std::string::npos) << o.out;
  const auto bad = run_k3sim("list packets");
  EXPECT_EQ(bad.exit_status, 2);
  EXPECT_NE(bad.err.find("networks, schedules, recompute, collectives, overlaps, gpus, models, families, topologies"), std::string::npos) << bad.err;
}

TEST(ListCli, HelpCarriesEachSubcommandsDescription) {
  const auto h = run_k3sim("--help");
  EXPECT_NE(h.out.find("List what is registered by name"), std::string::npos);
  EXPECT_NE(h.out.find("Simulate one training step of a scenario"), std::string::npos);
  const auto c = run_k3sim("collective --help");
  EXPECT_NE(c.out.find("flow or analytical"), std::string::npos);  // --network's values come from the registry
}
