#include "sim/engine/simulator.hpp"

#include <gtest/gtest.h>

#include <vector>

using k3::core::SimTime;
using k3::engine::Model;
using k3::engine::Simulator;

namespace {
// A model with a fixed list of dates; records when it was advanced and what the clock said.
class Ticker final : public Model {
 public:
  Ticker(Simulator& sim, std::vector<SimTime> dates) : sim_(sim), dates_(std::move(dates)) {}
  SimTime next_event_time() override { return next_ < dates_.size() ? dates_[next_] : SimTime::max(); }
  void advance_to(SimTime now) override {
    EXPECT_EQ(now, sim_.now());
    seen.push_back(now);
    ++next_;
  }
  std::vector<SimTime> seen;

 private:
  Simulator& sim_;
  std::vector<SimTime> dates_;
  std::size_t next_ = 0;
};
}  // namespace

TEST(Simulator, EventsSeeTheirOwnTimeAndCanScheduleMore) {
  Simulator sim;
  std::vector<std::int64_t> times;
  sim.schedule_at(SimTime::from_ps(100), [&] {
    times.push_back(sim.now().ps());
    sim.schedule_after(SimTime::from_ps(50), [&] { times.push_back(sim.now().ps()); });
  });
  sim.schedule_at(SimTime::from_ps(120), [&] { times.push_back(sim.now().ps()); });
  EXPECT_EQ(sim.run(), 3u);
  // 100, then 120 (scheduled before), then 100 + 50 = 150.
  EXPECT_EQ(times, (std::vector<std::int64_t>{100, 120, 150}));
  EXPECT_EQ(sim.now(), SimTime::from_ps(150));
}

TEST(Simulator, ModelsInterleaveWithQueueEventsAndQueueGoesFirstOnTies) {
  Simulator sim;
  Ticker ticker(sim, {SimTime::from_ps(10), SimTime::from_ps(30)});
  sim.add_model(ticker);
  std::vector<std::int64_t> queue_seen;
  // At 10 the queue event runs before the model is advanced (ties go to the queue).
  sim.schedule_at(SimTime::from_ps(10), [&] {
    queue_seen.push_back(sim.now().ps());
    EXPECT_TRUE(ticker.seen.empty());
  });
  sim.schedule_at(SimTime::from_ps(20), [&] { queue_seen.push_back(sim.now().ps()); });
  sim.run();
  EXPECT_EQ(queue_seen, (std::vector<std::int64_t>{10, 20}));
  EXPECT_EQ(ticker.seen, (std::vector<SimTime>{SimTime::from_ps(10), SimTime::from_ps(30)}));
}

TEST(Simulator, RunUntilStopsAndCancelWorks) {
  Simulator sim;
  int fired = 0;
  auto h = sim.schedule_at(SimTime::from_ps(5), [&] { ++fired; });
  sim.schedule_at(SimTime::from_ps(50), [&] { ++fired; });
  EXPECT_TRUE(sim.cancel(h));
  sim.run(SimTime::from_ps(40));
  EXPECT_EQ(fired, 0);
  EXPECT_EQ(sim.now(), SimTime::from_ps(40));
  sim.run();
  EXPECT_EQ(fired, 1);
}

TEST(Simulator, TwoSimulatorsAreIndependent) {
  Simulator a, b;
  a.schedule_at(SimTime::from_ps(7), [] {});
  b.schedule_at(SimTime::from_ps(9), [] {});
  a.run();
  EXPECT_EQ(a.now(), SimTime::from_ps(7));
  EXPECT_EQ(b.now(), SimTime::zero());
}
