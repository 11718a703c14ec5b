#include <gtest/gtest.h>

#include "sim/input/scenario.hpp"
#include "sim/parallel/schedule_registry.hpp"

using namespace k3::input;
using namespace k3::net;
using k3::core::InputError;

namespace {
const char* kScenario =
    "name: dsv3\n"                              // 1
    "model: deepseek-v3\n"                      // 2
    "cluster: {topology: h800-dsv3-2048}\n"     // 3
    "parallel:\n"                               // 4
    "  pp: 16\n"                                // 5
    "  ep: 64\n"                                // 6
    "  schedule: dualpipe\n"                    // 7
    "batch:\n"                                  // 8
    "  seq_len: 4096\n"                         // 9
    "  global_batch_seqs: 15360\n"              // 10
    "precision: {gemm: fp8, dispatch: fp8}\n"   // 11
    "communication: {alltoall: deepep, comm_sms: 20, node_limit: 4}\n";  // 12
}

TEST(Scenario, ParsesEverySection) {
  const auto s = k3::input::parse_scenario(kScenario, "dsv3.yaml");
  EXPECT_EQ(s.name, "dsv3");
  EXPECT_EQ(s.model, "deepseek-v3");
  EXPECT_EQ(s.topology, "h800-dsv3-2048");
  EXPECT_EQ(s.parallel.pp, 16);
  EXPECT_EQ(s.parallel.ep, 64);
  EXPECT_EQ(s.parallel.schedule->name, "dualpipe");
  EXPECT_EQ(s.batch.global_batch_seqs, 15360);
  EXPECT_EQ(s.precision.gemm, k3::workload::GemmPrecision::fp8);
  EXPECT_EQ(s.precision.combine, k3::workload::ElementType::bf16);
  EXPECT_EQ(s.communication.alltoall, k3::workload::AllToAllAlgorithm::deepep);
  EXPECT_EQ(s.communication.comm_sms, 20);
}

TEST(Scenario, OverridesApplyBeforeReading) {
  const auto s = k3::input::parse_scenario(kScenario, "dsv3.yaml", {k3::input::parse_override("parallel.ep=32"),
                                                         k3::input::parse_override("network=analytical")});
  EXPECT_EQ(s.parallel.ep, 32);
  EXPECT_EQ(s.network->name, "analytical");
  EXPECT_NE(s.yaml_text.find("ep: 32"), std::string::npos);
}

TEST(Scenario, BadInputNamesKeyAndLine) {
  try {
    k3::input::parse_scenario(std::string(kScenario) + "parallel_typo: 1\n", "dsv3.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().key, "parallel_typo");
    EXPECT_EQ(e.where().line, 13);
  }
  try {
    k3::input::parse_scenario(kScenario, "dsv3.yaml", {k3::input::parse_override("parallel.schedule=gpipe")});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().key, "parallel.schedule");
    EXPECT_NE(std::string(e.what()).find("1f1b, interleaved, dualpipe or dualpipev"), std::string::npos);
  }
  EXPECT_THROW(parse_override("novalue"), InputError);
  EXPECT_THROW(parse_scenario(kScenario, "d.yaml", {k3::input::parse_override("parallel.pp=0")}), InputError);
  EXPECT_THROW(parse_scenario(kScenario, "d.yaml", {k3::input::parse_override("parallel.zero=4")}), InputError);
  EXPECT_THROW(parse_scenario("model: k3\n", "d.yaml"), InputError);  // no cluster
}

TEST(Scenario, TheAllToAllOverlapNeedsA1F1BSteadyStateAndExperts) {
  // DualPipe merges its passes already: a2a_overlap there is an error naming the key.
  try {
    parse_scenario(kScenario, "dsv3.yaml", {parse_override("parallel.a2a_overlap=true")});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().key, "parallel.a2a_overlap");
    EXPECT_NE(std::string(e.what()).find("schedule: 1f1b or interleaved"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_scenario(kScenario, "d.yaml",
                              {parse_override("parallel.schedule=1f1b"), parse_override("parallel.ep=1"),
                               parse_override("parallel.a2a_overlap=true")}),
               InputError);
  const auto s = parse_scenario(kScenario, "d.yaml",
                                {parse_override("parallel.schedule=1f1b"), parse_override("parallel.a2a_overlap=true")});
  EXPECT_TRUE(s.parallel.a2a_overlap);
}
