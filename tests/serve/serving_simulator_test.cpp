// Properties of the serving simulation that hold whatever the cost model says: Little's law, a lone request's
// TTFT, saturation, capacity errors, determinism.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "sim/serve/iteration_cost.hpp"
#include "sim/serve/ratio_search.hpp"
#include "sim/serve/serving_simulator.hpp"
#include "tests/serve/serve_fixture.hpp"

namespace {

using k3::test::small_serving;

k3::serve::ServeResult run(const k3::input::ServeInputs& in) {
  return k3::serve::simulate_serving(in.inputs.model, *in.inputs.topology, nullptr, in.spec);
}

const char* kPoisson =
    "workload:\n"
    "  arrival: {kind: poisson, rate_per_s: 4}\n"
    "  prompt_tokens: {kind: lognormal, mean: 1500, sigma: 0.6, min: 64, max: 8192}\n"
    "  output_tokens: {kind: uniform, min: 20, max: 200}\n"
    "  duration_s: 60\n";

TEST(ServingSimulator, LittlesLawHoldsOnTheSimulatedQueue) {
  const auto r = run(small_serving(kPoisson));
  ASSERT_GT(r.requests, 100);
  // L = lambda W: the time-average number in the system (integrated at every arrival and departure) against the
  // arrival rate times the mean time in the system (summed per request), over the whole run.
  EXPECT_NEAR(r.mean_in_system, r.rate_times_latency, 0.02 * r.rate_times_latency);
}

TEST(ServingSimulator, LoneRequestsTakeOnePrefillThenOneDecodeIterationPerToken) {
  // One request every 100 s: nothing queues. The prefill forward of one 2,000-token prompt on one attention-DP rank
  // (the other 15 ranks idle) gives its first token; the client gets it from the decode side after the KV transfer
  // (the same for every request: one prompt length), so TTFT is the prefill iteration plus that wait. Each of the 9
  // tokens after the first is one decode iteration of one sequence whose context (2,001 to 2,009 tokens) stays in one
  // cost bucket (log2 x 32 = 351.05 .. 351.23): TPOT is that iteration's time, and the time in the system TTFT + 9 TPOT.
  auto in = small_serving(
      "workload:\n  arrival: {kind: poisson, rate_per_s: 0.01}\n  prompt_tokens: 2000\n  output_tokens: 10\n"
      "  duration_s: 2000\n");
  const auto r = run(in);
  ASSERT_GT(r.measured, 5);
  const auto cost = k3::serve::make_serving_cost(*in.inputs.topology, nullptr, in.spec);
  const auto serving = cost->inputs(in.inputs.model, *in.inputs.topology);
  // The prefill instance on GPUs 0-15, the decode one on 16-31.
  const auto model_of = [&](const k3::serve::InstanceSpec& instance, int first_gpu, bool decode) {
    std::vector<k3::topo::GpuId> gpus;
    for (int g = first_gpu; g < first_gpu + 16; ++g) gpus.push_back(static_cast<k3::topo::GpuId>(g));
    return k3::serve::IterationCostModel(in.inputs.model, *in.inputs.topology, *cost->cost,
                                         k3::serve::instance_cost_options(in.spec, serving, instance, gpus, decode));
  };
  auto prefill_model = model_of(in.spec.deployment.prefill, 0, false);
  k3::serve::BatchShape p;
  p.prefill_tokens = 2000;
  p.prefill_pairs = 2000.0 * 2000 / 2;
  p.prefill_last_chunks = 1;
  p.instance_tokens = 2000;
  const double prefill = prefill_model.time(p).total;
  EXPECT_GT(r.decode_wait.p50, 0);
  EXPECT_NEAR(r.decode_wait.max, r.decode_wait.p50, 1e-12);
  EXPECT_NEAR(r.ttft.p50, prefill + r.decode_wait.p50, 1e-9);
  EXPECT_NEAR(r.ttft.max, prefill + r.decode_wait.max, 1e-9);

  auto decode_model = model_of(in.spec.deployment.decode, 16, true);
  k3::serve::BatchShape d;
  d.decode_sequences = 1;
  d.decode_context = 2001;
  d.instance_tokens = 1;
  const double step = decode_model.time(d).total;
  EXPECT_NEAR(r.tpot.p50, step, 1e-9);
  EXPECT_NEAR(r.tpot.max, step, 1e-9);
  EXPECT_NEAR(r.e2e.p50, r.ttft.p50 + 9 * step, 1e-9);
}

// Issue 49: pipeline-parallel prefill. The prefill instance's 16 GPUs as 2 stages of 8 (attention DP 8 each), one
// 20,000-token prompt every 100 s in chunks of the 8,192-token budget: 8,192, 8,192 and 3,616 tokens. Each chunk
// enters when the one before has left the slowest stage (an iteration's `total`), and the last reaches its first
// token after all stages and the hop between them (its `latency`): prefill = t1 + t2 + latency3. The chunks' pairs:
// 8,192^2 / 2; 8,192 x 8,192 + 8,192^2 / 2; 3,616 x 16,384 + 3,616^2 / 2.
TEST(ServingSimulator, PipelinedPrefillChunksFollowEachOtherThroughTheStages) {
  auto in = small_serving(
      "workload:\n  arrival: {kind: poisson, rate_per_s: 0.01}\n  prompt_tokens: 20000\n  output_tokens: 10\n"
      "  duration_s: 1000\n",
      {{"deployment.prefill.pp", "2"}, {"deployment.prefill.attention_dp", "8"}});
  const auto r = run(in);
  ASSERT_GT(r.measured, 3);
  const auto cost = k3::serve::make_serving_cost(*in.inputs.topology, nullptr, in.spec);
  const auto serving = cost->inputs(in.inputs.model, *in.inputs.topology);
  std::vector<k3::topo::GpuId> gpus;
  for (int g = 0; g < 16; ++g) gpus.push_back(static_cast<k3::topo::GpuId>(g));
  k3::serve::IterationCostModel m(in.inputs.model, *in.inputs.topology, *cost->cost,
                                  k3::serve::instance_cost_options(in.spec, serving, in.spec.deployment.prefill, gpus,
                                                                   false));
  ASSERT_EQ(m.gpus(), 8);
  auto chunk = [&](double tokens, double done, bool last) {
    k3::serve::BatchShape b;
    b.prefill_tokens = b.instance_tokens = tokens;
    b.prefill_pairs = tokens * done + tokens * tokens / 2;
    b.prefill_last_chunks = last ? 1 : 0;
    return m.time(b);
  };
  const auto t1 = chunk(8192, 0, false), t2 = chunk(8192, 8192, false), t3 = chunk(3616, 16384, true);
  EXPECT_GT(t3.latency, t3.total);
  EXPECT_NEAR(r.ttft.p50 - r.decode_wait.p50, t1.total + t2.total + t3.latency, 1e-9);
}

// Issue 49: weights in host memory. DeepSeek-V3's prefill on one H100 node (8 GPUs, attention DP 8): 653.9B routed
// parameters / 8 + 17.1B on every GPU = 98.8 GB of FP8 weights per 80 GB GPU, refused, with the offload among the
// remedies. Keeping 30 GB per GPU in host memory leaves 68.8 GB resident, 8 GB reserve, 3.2 GB for KV; every prefill
// iteration then reads the 30 GB over PCIe Gen5 x16 (64 GB/s per direction): 0.469 s.
TEST(ServingSimulator, APrefillInstanceRunsWithPartOfItsWeightsInHostMemory) {
  const char* workload =
      "workload:\n  arrival: {kind: poisson, rate_per_s: 0.5}\n  prompt_tokens: 1000\n  output_tokens: 4\n"
      "  duration_s: 20\n";
  const std::vector<k3::input::Override> one_node{{"deployment.prefill.nodes", "1"},
                                                  {"deployment.prefill.attention_dp", "8"}};
  try {
    run(small_serving(workload, one_node));
    ADD_FAILURE() << "98.8 GB of weights on an 80 GB GPU accepted";
  } catch (const k3::core::InputError& e) {
    EXPECT_NE(e.allowed().find("weight_offload_gb"), std::string::npos) << e.allowed();
  }
  auto sets = one_node;
  sets.push_back({"deployment.prefill.weight_offload_gb", "30"});
  const auto r = run(small_serving(workload, sets));
  EXPECT_NEAR(r.prefill_kv.offloaded_bytes_per_gpu, 30e9, 1.0);
  EXPECT_NEAR(r.prefill_kv.weight_bytes_per_gpu / 1e9, 68.8, 0.6);
  bool prefilled = false;
  for (const auto& p : r.phases) {
    if (p.phase != "prefill") continue;
    prefilled = true;
    EXPECT_NEAR(p.mean_breakdown.host_weights, 30e9 / 64e9, 1e-12);
    EXPECT_GT(p.mean_iteration_s, 30e9 / 64e9);
  }
  EXPECT_TRUE(prefilled);
  // More than the GPU holds is refused, naming the most it can be.
  sets.back() = {"deployment.prefill.weight_offload_gb", "120"};
  try {
    run(small_serving(workload, sets));
    ADD_FAILURE() << "120 GB offloaded of 98.8";
  } catch (const k3::core::InputError& e) {
    EXPECT_NE(e.allowed().find("at most 98."), std::string::npos) << e.allowed();
  }
}

TEST(ServingSimulator, ThroughputGrowsWithTheRateThenSaturates) {
  std::vector<double> out;
  for (double rate : {1.0, 2.0, 512.0, 1024.0}) {
    auto in = small_serving(kPoisson);
    in.spec.workload.arrival.rate_per_s = rate;
    in.spec.workload.duration_s = 30;
    in.spec.workload.warmup_s = 10;
    out.push_back(run(in).output_tokens_per_s);
  }
  // Far below capacity every request is served: output doubles with the rate (within the Poisson noise of a
  // 20 s window); far above it the deployment is busy all the time and output stops growing.
  EXPECT_NEAR(out[1] / out[0], 2.0, 0.4);
  EXPECT_LT(out[3] / out[2], 1.15);
  EXPECT_GT(out[2], 4 * out[1]);
}

TEST(ServingSimulator, SameSeedSameResultOtherSeedOtherStream) {
  const auto a = run(small_serving(kPoisson));
  const auto b = run(small_serving(kPoisson));
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.ttft.p99, b.ttft.p99);
  EXPECT_EQ(a.output_tokens_per_s, b.output_tokens_per_s);
  const auto c = run(small_serving(kPoisson, {{"seed", "7"}}));
  EXPECT_NE(a.requests, c.requests);
}

TEST(ServingSimulator, ARequestWhoseKvCannotFitIsAnInputError) {
  // 4M tokens of context: DeepSeek-V3's 70,272 B per token (61 MLA layers x 576 x 2 B) is 295 GB, more than an
  // H100 holds.
  auto in = small_serving(
      "workload:\n  arrival: {kind: poisson, rate_per_s: 1}\n  prompt_tokens: 4M\n  output_tokens: 10\n"
      "  duration_s: 10\n");
  try {
    run(in);
    FAIL() << "expected an InputError";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "workload");
    EXPECT_NE(std::string(e.what()).find("KV cache"), std::string::npos) << e.what();
  }
}

TEST(ServingSimulator, ADeploymentLargerThanTheClusterIsAnInputError) {
  auto in = small_serving(kPoisson);
  in.spec.deployment.decode.nodes = 8;
  in.spec.deployment.decode.attention_dp = 64;
  EXPECT_THROW(run(in), k3::core::InputError);
}

TEST(ServingSimulator, ClosedLoopKeepsItsConcurrencyAndKvStaysWithinCapacity) {
  const auto r = run(small_serving(
      "workload:\n  arrival: {kind: closed_loop, concurrency: 256}\n  prompt_tokens: 3000\n  output_tokens: 300\n"
      "  duration_s: 40\n  warmup_s: 10\n"));
  // 256 requests in the system at every instant until arrivals stop (then it drains): the time average over the
  // run sits a little below 256.
  EXPECT_LE(r.mean_in_system, 256.0);
  EXPECT_GT(r.mean_in_system, 200.0);
  EXPECT_LE(r.peak_kv_utilisation, 1.0);
  EXPECT_GT(r.peak_kv_utilisation, 0.0);
  EXPECT_GT(r.mean_decode_batch_per_rank, 1.0);
}

}  // namespace

namespace {

TEST(RatioSearch, SplitsWhoseWeightsDoNotFitAreListedWithTheReason) {
  // 4 nodes of H100 split 1:3, 2:2, 3:1. DeepSeek-V3 in FP8 on one node: 653.9B routed parameters over 8 GPUs is
  // 81.7 GB per GPU before the 17.1 GB every rank holds, more than an H100's 80 GB, so only 2:2 fits.
  const auto in = small_serving(kPoisson);
  const auto s = k3::serve::search_prefill_decode_ratio(in.inputs.model, *in.inputs.topology, nullptr, in.spec, 2);
  ASSERT_EQ(s.points.size(), 3u);
  EXPECT_FALSE(s.points[0].fits);
  EXPECT_NE(s.points[0].why.find("weights"), std::string::npos) << s.points[0].why;
  EXPECT_TRUE(s.points[1].fits);
  EXPECT_FALSE(s.points[2].fits);
  EXPECT_EQ(s.best, 1);
  EXPECT_EQ(s.points[1].prefill_nodes, 2);
  // The same split as the scenario's own: the same result.
  EXPECT_EQ(s.points[1].result.ttft.p99, run(in).ttft.p99);
}

}  // namespace
