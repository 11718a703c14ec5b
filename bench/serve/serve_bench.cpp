// Serving simulation speed (issue 19's target): one hour of simulated traffic at 100 requests/s on the 13-node
// disaggregated DeepSeek-V3 deployment (scenarios/serving/deepseek-v3-h100-96-serving.yaml) in under 10 s on
// 2 cores; and the same for K3 on its 24-node H200 deployment. Counters: simulated requests, distinct
// iteration shapes costed, and simulated seconds per wall second.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "sim/input/serve_scenario.hpp"
#include "sim/serve/serving_simulator.hpp"

namespace {

using namespace k3;

void run_hour(benchmark::State& state, const std::string& scenario, double rate) {
  const std::vector<std::string> sets = {"workload.arrival.rate_per_s=" + std::to_string(rate),
                                         "workload.duration_s=3600", "workload.warmup_s=60"};
  const auto in = input::load_serve_inputs(std::string(K3SIM_SOURCE_DIR) + "/scenarios/serving/" + scenario, sets);
  serve::ServeResult r;
  for (auto _ : state) {
    r = serve::simulate_serving(in.inputs.model, *in.inputs.topology, in.inputs.profile_or_null(), in.spec);
    benchmark::DoNotOptimize(r);
  }
  state.counters["requests"] = static_cast<double>(r.requests);
  state.counters["shapes"] = static_cast<double>(r.distinct_iteration_shapes);
  state.counters["simulated_s"] = r.simulated_s;
  state.counters["output_tok_per_s_per_node"] = r.output_tokens_per_s_per_node;
}

void BM_DeepSeekV3HourAt100PerSecond(benchmark::State& state) {
  run_hour(state, "deepseek-v3-h100-96-serving.yaml", 100);
}
BENCHMARK(BM_DeepSeekV3HourAt100PerSecond)->Unit(benchmark::kSecond)->Iterations(1);

void BM_K3HourAt40PerSecond(benchmark::State& state) { run_hour(state, "k3-h200-serving.yaml", 40); }
BENCHMARK(BM_K3HourAt40PerSecond)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
