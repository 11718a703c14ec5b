// One simulated training step of the shipped K3 scenario (2,048 H200, DualPipe PP16, EP64, QB balancer state)
// and how its cost grows with the GPU count and the micro-batches per pipeline. Issue 6's targets: < 10 s
// with the flow network, < 1 s analytical, < 3 s analytical on 9,216 GPUs. One pass-simulation thread
// (`k3sim run -j 1`), so the figures compare across machines with different core counts.
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <vector>

#include "model/model_spec.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_band.hpp"
#include "sim/train/step_simulator.hpp"
#include "topologies/topology.hpp"

namespace {

using namespace k3;

const std::string kScenario = std::string(K3SIM_SOURCE_DIR) + "/scenarios/k3-h200-2048.yaml";

// K3 on `nodes` nodes of 8 H200 with the global batch scaled to keep 7.5 sequences per GPU (15,360 on 2,048),
// times `batch_scale` (more or fewer micro-batches per pipeline at the same GPU count).
void run_step(benchmark::State& state, const std::string& network, int nodes, double batch_scale) {
  const auto seqs = static_cast<long long>(7.5 * nodes * 8 * batch_scale);
  std::vector<std::string> sets = {"network=" + network, "cluster.nodes=" + std::to_string(nodes),
                                   "batch.global_batch_seqs=" + std::to_string(seqs)};
  // The h200-rail preset's 64-port switches reach 2,048 GPUs in two tiers; larger clusters get 256 ports.
  if (nodes > 256) sets.push_back("cluster.radix=256");
  const auto in = input::load_scenario_inputs(kScenario, sets, "");
  train::StepOptions opt;
  opt.trace = false;
  opt.threads = 1;
  double step_s = 0, microbatches = 0;
  for (auto _ : state) {
    const auto r = train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
    step_s = r.step_time_s;
    microbatches = static_cast<double>(r.microbatches);
  }
  state.counters["gpus"] = nodes * 8.0;
  state.counters["microbatches_per_pipeline"] = microbatches;
  state.counters["simulated_step_s"] = step_s;
}

void BM_K3Step2048(benchmark::State& state) {
  run_step(state, state.range(0) == 0 ? "analytical" : "flow", 256, 1.0);
}
BENCHMARK(BM_K3Step2048)->Arg(0)->Arg(1)->ArgNames({"flow"})->Unit(benchmark::kSecond)->Iterations(1);

// Issue 42's target for DeepSeek-V3 (2,048 H800, DualPipe PP16, EP64, 120 micro-batches per pipeline), analytical
// network, one thread: at most 0.5 s.
void BM_Dsv3Step2048Analytical(benchmark::State& state) {
  const auto in = input::load_scenario_inputs(std::string(K3SIM_SOURCE_DIR) + "/scenarios/deepseek-v3-h800-2048.yaml",
                                              {"network=analytical"}, "");
  train::StepOptions opt;
  opt.trace = false;
  opt.threads = 1;
  double step_s = 0;
  for (auto _ : state) step_s = train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt).step_time_s;
  state.counters["simulated_step_s"] = step_s;
}
BENCHMARK(BM_Dsv3Step2048Analytical)->Unit(benchmark::kSecond)->Iterations(1);

// Cost against GPUs (analytical network): 1,024, 2,048, 4,096 and 9,216 GPUs (EP 64 needs DP >= 64).
void BM_K3StepAnalyticalByGpus(benchmark::State& state) {
  run_step(state, "analytical", static_cast<int>(state.range(0)), 1.0);
}
BENCHMARK(BM_K3StepAnalyticalByGpus)->Arg(128)->Arg(256)->Arg(512)->Arg(1152)->ArgNames({"nodes"})
    ->Unit(benchmark::kSecond)->Iterations(1);

// Cost against micro-batches per pipeline on 2,048 GPUs (analytical): x0.5, x1, x2, x4 the shipped batch
// (DualPipe needs at least 2 x PP = 32 micro-batches).
void BM_K3StepAnalyticalByMicrobatches(benchmark::State& state) {
  run_step(state, "analytical", 256, static_cast<double>(state.range(0)) / 4.0);
}
BENCHMARK(BM_K3StepAnalyticalByMicrobatches)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->ArgNames({"quarter_batches"})
    ->Unit(benchmark::kSecond)->Iterations(1);

// Issues 42 and 44: the uncertainty band with the default 64 samples (and its tornado by factor) must cost at most
// 3x a plain run. Both are timed in the same iteration on all hardware threads, as `k3sim run` runs them; the counter
// band_over_plain is that ratio (the band's extra time over the plain run's), measured in one run so that
// machine noise cancels.
void BM_K3StepBandOverPlain(benchmark::State& state) {
  const std::string network = state.range(0) == 0 ? "analytical" : "flow";
  const auto in = input::load_scenario_inputs(kScenario, {"network=" + network}, "");
  train::StepOptions opt;
  opt.trace = false;
  double plain_s = 0, band_s = 0, runs = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
    const auto t1 = std::chrono::steady_clock::now();
    train::BandOptions band_options;
    band_options.seed = in.scenario.seed;
    const auto band = train::simulate_step_band(in.scenario, in.model, *in.topology, in.profile_or_null(), r, band_options);
    const auto t2 = std::chrono::steady_clock::now();
    plain_s = std::chrono::duration<double>(t1 - t0).count();
    band_s = std::chrono::duration<double>(t2 - t1).count();
    runs = band.runs;
  }
  state.counters["plain_s"] = plain_s;
  state.counters["band_s"] = band_s;
  state.counters["band_over_plain"] = band_s / plain_s;
  state.counters["band_runs"] = runs;
}
BENCHMARK(BM_K3StepBandOverPlain)->Arg(0)->Arg(1)->ArgNames({"flow"})->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
