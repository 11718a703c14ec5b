// Bad serving scenarios: one InputError naming the file, the key and its line.
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.hpp"
#include "sim/input/serve_scenario.hpp"
#include "tests/serve/serve_fixture.hpp"

namespace {

k3::core::InputError error_of(const std::string& yaml) {
  try {
    k3::input::parse_serve_scenario(yaml, "bad.yaml");
  } catch (const k3::core::InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return k3::core::InputError({}, "");
}

const char* kHundredTokenPrompts =
    "workload:\n  arrival: {kind: poisson, rate_per_s: 1}\n  prompt_tokens: 100\n  output_tokens: 10\n"
    "  duration_s: 10\n";

TEST(ServeScenario, TheFixtureParses) {
  const auto s = k3::input::parse_serve_scenario(k3::test::small_serving_yaml(kHundredTokenPrompts), "small.yaml");
  EXPECT_EQ(s.spec.deployment.prefill.nodes, 2);
  EXPECT_EQ(s.spec.deployment.decode.attention_dp, 16);
  EXPECT_DOUBLE_EQ(s.spec.workload.prompt.mean, 100);
  EXPECT_DOUBLE_EQ(s.spec.dispatch_bytes_per_element, 1 + 4.0 / 128);
}

// Issue 49: NVFP4 and FP8 KV caches in serving. NVFP4 weights take 0.5 B and one E4M3 scale per 16: 0.5625 B, 56%
// of FP8's byte; an FP8 cache one byte per element.
TEST(ServeScenario, BlockScaledWeightsAndAnFp8KvCache) {
  const std::vector<k3::input::Override> sets{{"precision.weights", "nvfp4"}, {"precision.kv_cache", "fp8"}};
  const auto s = k3::input::parse_serve_scenario(k3::test::small_serving_yaml(kHundredTokenPrompts), "small.yaml", sets);
  EXPECT_DOUBLE_EQ(s.spec.weight_bytes_per_param, 0.5625);
  EXPECT_DOUBLE_EQ(s.spec.kv_cache_bytes_per_element, 1.0);
  try {
    k3::input::parse_serve_scenario(k3::test::small_serving_yaml(kHundredTokenPrompts), "small.yaml",
                                    {{"precision.kv_cache", "int8"}});
    ADD_FAILURE() << "int8 accepted";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "precision.kv_cache");
    EXPECT_NE(e.allowed().find("fp8"), std::string::npos) << e.allowed();
  }
  // NVFP4 GEMMs need Blackwell tensor cores: on H100 the topology check names precision.gemm.
  try {
    k3::test::small_serving(kHundredTokenPrompts, {{"precision.gemm", "nvfp4"}});
    ADD_FAILURE() << "nvfp4 on H100 accepted";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "precision.gemm");
    EXPECT_NE(e.allowed().find("B200"), std::string::npos) << e.allowed();
  }
}

TEST(ServeScenario, AnUnknownKeyNamesItsLine) {
  const auto e = error_of(k3::test::small_serving_yaml(kHundredTokenPrompts) + "schedular: {}\n");
  EXPECT_EQ(e.where().file, "bad.yaml");
  EXPECT_EQ(e.where().key, "schedular");
  EXPECT_GT(e.where().line, 0);
}

TEST(ServeScenario, OutOfRangeValuesNameTheirKey) {
  auto yaml = k3::test::small_serving_yaml(
      "workload:\n  arrival: {kind: poisson, rate_per_s: 1}\n  prompt_tokens: 100\n  output_tokens: 10\n"
      "  duration_s: 10\n  prefix_cache_hit: 1.5\n");
  EXPECT_EQ(error_of(yaml).where().key, "workload.prefix_cache_hit");
  yaml = k3::test::small_serving_yaml(
      "workload:\n  arrival: {kind: poisson, rate_per_s: -1}\n  prompt_tokens: 100\n  output_tokens: 10\n"
      "  duration_s: 10\n");
  EXPECT_EQ(error_of(yaml).where().key, "workload.arrival.rate_per_s");
  yaml = k3::test::small_serving_yaml(
      "workload:\n  arrival: {kind: bursty}\n  prompt_tokens: 100\n  output_tokens: 10\n  duration_s: 10\n");
  EXPECT_EQ(error_of(yaml).where().key, "workload.arrival.kind");
}

TEST(ServeScenario, StreamsBeyondTheSizeLimitsAreRefusedUpFront) {
  // 1e9 requests/s for 10 s: 1e10 requests, a thousand times the 1e7 limit; the largest rate for 10 s is 1e6.
  auto e = error_of(k3::test::small_serving_yaml(
      "workload:\n  arrival: {kind: poisson, rate_per_s: 1e9}\n  prompt_tokens: 100\n  output_tokens: 10\n"
      "  duration_s: 10\n"));
  EXPECT_EQ(e.where().key, "workload.duration_s");
  EXPECT_NE(e.allowed().find("arrival.rate_per_s at most 1.00M"), std::string::npos) << e.allowed();
  // 1e7 s of arrivals: past the 1e6 s the 64-bit picosecond clock leaves room for, whatever the rate.
  e = error_of(k3::test::small_serving_yaml(
      "workload:\n  arrival: {kind: closed_loop, concurrency: 4}\n  prompt_tokens: 100\n  output_tokens: 10\n"
      "  duration_s: 1e7\n"));
  EXPECT_EQ(e.where().key, "workload.duration_s");
  // At the limit itself both are accepted: 1e6 requests/s for 10 s.
  EXPECT_NO_THROW(k3::input::parse_serve_scenario(
      k3::test::small_serving_yaml("workload:\n  arrival: {kind: poisson, rate_per_s: 1e6}\n  prompt_tokens: 100\n"
                                   "  output_tokens: 10\n  duration_s: 10\n"),
      "ok.yaml"));
}

// Issue 49: an MoE TP group inside the instance. The degree is checked against the instance's GPUs once the
// topology is known (2 H100 nodes: 16 GPUs), naming the key and its line.
TEST(ServeScenario, MoeTpMustDivideTheInstancesGpus) {
  const auto in = k3::test::small_serving(kHundredTokenPrompts, {{"deployment.decode.moe_tp", "4"}});
  EXPECT_EQ(in.spec.deployment.decode.moe_tp, 4);
  EXPECT_EQ(in.spec.deployment.prefill.moe_tp, 1);
  try {
    k3::test::small_serving(kHundredTokenPrompts, {{"deployment.prefill.moe_tp", "6"}});
    ADD_FAILURE() << "moe_tp 6 of 16 GPUs accepted";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().file, "--set on small.yaml");
    EXPECT_EQ(e.where().key, "deployment.prefill.moe_tp");
    EXPECT_NE(e.allowed().find("a divisor of 16"), std::string::npos) << e.allowed();
  }
  // Written in the file, the error gives its line: the prefill map is line 8 of the fixture.
  std::string yaml = k3::test::small_serving_yaml(kHundredTokenPrompts);
  const std::string prefill = "prefill: {nodes: 2, attention_dp: 16}";
  yaml.replace(yaml.find(prefill), prefill.size(), "prefill: {nodes: 2, attention_dp: 16, moe_tp: 6}");
  try {
    k3::input::resolve_serve_scenario(k3::input::parse_serve_scenario(yaml, "small.yaml"));
    ADD_FAILURE() << "moe_tp 6 of 16 GPUs accepted";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().file, "small.yaml");
    EXPECT_EQ(e.where().key, "deployment.prefill.moe_tp");
    EXPECT_EQ(e.where().line, 8);
  }
}

// Issue 49: scheduler.overlap, a list of registered overlaps; the old boolean is refused naming its successor.
// Pipeline stages: prefill instances only; a stage's GPUs must take the attention DP ranks.
TEST(ServeScenario, PipelineStagesArePrefillsAndSplitTheGpus) {
  auto key_of = [](const std::vector<k3::input::Override>& sets) -> std::string {
    try {
      k3::test::small_serving(kHundredTokenPrompts, sets);
    } catch (const k3::core::InputError& e) {
      return e.where().key;
    }
    return "accepted";
  };
  EXPECT_EQ(key_of({{"deployment.decode.pp", "2"}}), "deployment.decode.pp");
  // 16 GPUs in 2 stages of 8 cannot hold 16 attention ranks each; in 3 stages they do not split.
  EXPECT_EQ(key_of({{"deployment.prefill.pp", "2"}}), "deployment.prefill.attention_dp");
  EXPECT_EQ(key_of({{"deployment.prefill.pp", "3"}, {"deployment.prefill.attention_dp", "1"}}), "deployment.prefill.pp");
  EXPECT_EQ(key_of({{"deployment.prefill.pp", "2"}, {"deployment.prefill.attention_dp", "8"}}), "accepted");
}

TEST(ServeScenario, OverlapIsAListOfRegisteredNames) {
  const std::string yaml = k3::test::small_serving_yaml(kHundredTokenPrompts);
  auto spec = k3::input::parse_serve_scenario(yaml, "small.yaml").spec;
  EXPECT_TRUE(spec.scheduler.two_batch_overlap);
  EXPECT_FALSE(spec.scheduler.combine_with_down_gemm);
  spec = k3::input::parse_serve_scenario(yaml, "small.yaml", {{"scheduler.overlap", "[combine_with_down_gemm]"}}).spec;
  EXPECT_FALSE(spec.scheduler.two_batch_overlap);
  EXPECT_TRUE(spec.scheduler.combine_with_down_gemm);
  spec = k3::input::parse_serve_scenario(yaml, "small.yaml", {{"scheduler.overlap", "[]"}}).spec;
  EXPECT_FALSE(spec.scheduler.two_batch_overlap || spec.scheduler.combine_with_down_gemm);
  try {
    k3::input::parse_serve_scenario(yaml, "small.yaml", {{"scheduler.overlap", "[three_batch]"}});
    ADD_FAILURE() << "three_batch accepted";
  } catch (const k3::core::InputError& err) {
    EXPECT_EQ(err.where().key.rfind("scheduler.overlap", 0), 0u) << err.where().key;
    EXPECT_NE(err.allowed().find("combine_with_down_gemm"), std::string::npos) << err.allowed();
  }
  try {
    k3::input::parse_serve_scenario(yaml, "small.yaml", {{"scheduler.two_batch_overlap", "true"}});
    ADD_FAILURE() << "two_batch_overlap accepted";
  } catch (const k3::core::InputError& err) {
    EXPECT_EQ(err.where().key, "scheduler.two_batch_overlap");
    EXPECT_NE(err.allowed().find("scheduler.overlap: [two_batch]"), std::string::npos) << err.allowed();
  }
}

TEST(ServeScenario, ColocatedTakesOneInstanceType) {
  const std::string yaml =
      "model: deepseek-v3\ncluster: {topology: h100-rail, nodes: 4}\n"
      "deployment:\n  kind: colocated\n  prefill: {nodes: 2, attention_dp: 16}\n" +
      std::string(kHundredTokenPrompts);
  EXPECT_EQ(error_of(yaml).where().key, "deployment");
}

TEST(ServeScenario, ATraceLineThatIsNotANumberNamesTheTraceAndLine) {
  const std::string path = std::string(K3SIM_BINARY_DIR) + "/serve-bad-trace.csv";
  {
    std::ofstream f(path);
    f << "arrival_s,prompt_tokens,output_tokens\n0.5,100,10\n1.0,lots,10\n";
  }
  const auto e = error_of(k3::test::small_serving_yaml("workload:\n  arrival: {kind: trace, file: " + path +
                                                        "}\n  duration_s: 10\n"));
  EXPECT_EQ(e.where().file, path);
  EXPECT_EQ(e.where().line, 3);
}

}  // namespace
