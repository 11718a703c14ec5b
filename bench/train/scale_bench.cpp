// Issue 23: the cost of one simulated step against the GPU count, 1K to 262K GPUs, for K3 (2,048-GPU scenario
// scaled) and DeepSeek-V3, on the analytical and the flow network. Every size runs inside one benchmark
// iteration, so the per-doubling ratios compare points measured in one run on one machine state. The cluster
// is the scenario's node type on a three-tier fat tree of 128-port switches (which reaches 524,288 GPUs), the
// layout its own (PP16, EP64; DP = GPUs / 16), 32 micro-batches per pipeline at every size.
// Counters per point: s_<gpus> (wall seconds: loading the scenario, building the topology, the step), cpu_<gpus>
// (the process's CPU seconds over the same span: on a shared machine the steadier figure) and rss_<gpus> (peak
// resident bytes of that point: the high-water mark is reset before each, /proc/self/clear_refs);
// time_per_doubling (of CPU seconds) and rss_per_doubling are the geometric means of the ratios between
// successive points from 16K GPUs up (2 = linear). One pass-simulation thread, as bench_step.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <time.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_simulator.hpp"

namespace {

using namespace k3;

// The peak resident set since the last reset (VmHWM), in bytes; 0 where /proc is missing.
double peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmHWM:") {
      double kib = 0;
      status >> kib;
      return kib * 1024.0;
    }
    status.ignore(1 << 20, '\n');
  }
  return 0;
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// The high-water mark restarts from the current resident set, so the heap the previous point freed is handed
// back first (glibc keeps it otherwise, and every later point would report it).
void reset_peak_rss() {
  malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

std::string label(std::int64_t gpus) { return std::to_string(gpus / 1024) + "K"; }

struct Point {
  double wall_s = 0, cpu_s = 0, rss_bytes = 0;
};

// `scenario` scaled to `nodes` nodes of 8 GPUs.
Point step_at(const std::string& scenario, const std::string& network, int nodes) {
  const std::int64_t dp = static_cast<std::int64_t>(nodes) * 8 / 16;
  const std::vector<std::string> sets = {"network=" + network, "cluster.nodes=" + std::to_string(nodes),
                                         "cluster.fabric.radix=128", "cluster.fabric.tiers=3",
                                         "batch.global_batch_seqs=" + std::to_string(dp * 32)};
  reset_peak_rss();
  const double cpu0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  const auto in = input::load_scenario_inputs(scenario, sets, "");
  train::StepOptions opt;
  opt.trace = false;
  opt.threads = 1;
  const auto r = train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
  benchmark::DoNotOptimize(r.step_time_s);
  Point p;
  p.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  p.cpu_s = cpu_seconds() - cpu0;
  p.rss_bytes = peak_rss_bytes();
  return p;
}

void by_gpus(benchmark::State& state, const std::string& file, const std::string& network) {
  const std::string scenario = std::string(K3SIM_SOURCE_DIR) + "/scenarios/" + file;
  const std::vector<int> nodes = {128, 512, 2048, 8192, 16384, 32768};  // 1K .. 262K GPUs
  const auto largest = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    double time_ratio = 1, rss_ratio = 1;
    int doublings = 0;
    Point last;
    for (std::size_t i = 0; i < nodes.size() && i <= largest; ++i) {
      const Point p = step_at(scenario, network, nodes[i]);
      const auto gpus = static_cast<std::int64_t>(nodes[i]) * 8;
      state.counters["s_" + label(gpus)] = p.wall_s;
      state.counters["cpu_" + label(gpus)] = p.cpu_s;
      state.counters["rss_" + label(gpus)] = p.rss_bytes;
      if (gpus > 16384) {
        time_ratio *= p.cpu_s / last.cpu_s;
        rss_ratio *= p.rss_bytes / last.rss_bytes;
        doublings += static_cast<int>(std::log2(static_cast<double>(nodes[i]) / nodes[i - 1]));
      }
      last = p;
    }
    if (doublings > 0) {
      state.counters["time_per_doubling"] = std::pow(time_ratio, 1.0 / doublings);
      state.counters["rss_per_doubling"] = std::pow(rss_ratio, 1.0 / doublings);
    }
  }
}

// Argument: index of the largest size run (5 = 262K GPUs).
void BM_K3StepCostByGpus(benchmark::State& state) {
  by_gpus(state, "k3-h200-2048.yaml", state.range(1) == 0 ? "analytical" : "flow");
}
BENCHMARK(BM_K3StepCostByGpus)->Args({5, 0})->Args({5, 1})->ArgNames({"largest", "flow"})
    ->Unit(benchmark::kSecond)->Iterations(1);

void BM_DeepSeekV3StepCostByGpus(benchmark::State& state) {
  by_gpus(state, "deepseek-v3-h800-2048.yaml", state.range(1) == 0 ? "analytical" : "flow");
}
BENCHMARK(BM_DeepSeekV3StepCostByGpus)->Args({5, 0})->Args({5, 1})->ArgNames({"largest", "flow"})
    ->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
