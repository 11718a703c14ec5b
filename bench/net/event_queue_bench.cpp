// Event queue throughput: schedule + pop pairs per second (target: at least 20 M/s).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "core/rng.hpp"
#include "sim/engine/event_queue.hpp"
#include "sim/engine/simulator.hpp"

using k3::core::SimTime;

// Hold model: a queue kept at `depth` pending events; each iteration pops the earliest and schedules one
// at a random later time (the classic priority-queue benchmark shape of a discrete-event run).
static void BM_EventQueueHold(benchmark::State& state) {
  const auto depth = static_cast<std::size_t>(state.range(0));
  k3::engine::EventQueue q;
  k3::core::Rng rng(1);
  std::uint64_t fired = 0;
  for (std::size_t i = 0; i < depth; ++i)
    q.schedule(SimTime::from_ps(static_cast<std::int64_t>(rng.below(1'000'000))), 0, [&fired] { ++fired; });
  k3::engine::EventCallback cb;
  for (auto _ : state) {
    const SimTime now = q.pop(cb);
    cb();
    q.schedule(now + SimTime::from_ps(1 + static_cast<std::int64_t>(rng.below(1'000'000))), 0, [&fired] { ++fired; });
  }
  benchmark::DoNotOptimize(fired);
  state.SetItemsProcessed(state.iterations());
  state.SetLabel("items = schedule+pop pairs");
}
BENCHMARK(BM_EventQueueHold)->Arg(64)->Arg(1024)->Arg(65536);

// Batch: schedule N events at random times, then pop them all, through the Simulator's run loop.
static void BM_SimulatorBatch(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  k3::core::Rng rng(2);
  std::vector<std::int64_t> times(n);
  for (auto& t : times) t = static_cast<std::int64_t>(rng.below(1'000'000'000));
  std::uint64_t fired = 0;
  for (auto _ : state) {
    k3::engine::Simulator sim;
    for (auto t : times) sim.schedule_at(SimTime::from_ps(t), [&fired] { ++fired; });
    sim.run();
  }
  benchmark::DoNotOptimize(fired);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.SetLabel("items = schedule+pop pairs");
}
BENCHMARK(BM_SimulatorBatch)->Arg(1 << 16)->Arg(1 << 20);

BENCHMARK_MAIN();
