#pragma once
// One simulation run: the clock, the event queue and the registered models. No global state, so several
// simulators can live in one process (a sweep runs many side by side).
#include <vector>

#include "sim/engine/event_queue.hpp"
#include "sim/engine/model.hpp"

namespace k3::engine {

class Simulator {
 public:
  Simulator() = default;
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  SimTime now() const { return now_; }

  // Schedules `callback` at absolute time `at` (>= now). Lower `priority` fires first at equal times.
  EventHandle schedule_at(SimTime at, EventCallback callback, EventPriority priority = 0);
  EventHandle schedule_after(SimTime delay, EventCallback callback, EventPriority priority = 0) {
    return schedule_at(now_ + delay, std::move(callback), priority);
  }
  bool cancel(EventHandle handle) { return queue_.cancel(handle); }
  bool pending(EventHandle handle) const { return queue_.pending(handle); }

  // The model must outlive the run; the simulator does not own it (the scenario does).
  void add_model(Model& model) { models_.push_back(&model); }

  // Runs until no event and no model work is left, or until the clock would pass `until`.
  // Returns the number of queue events executed.
  std::uint64_t run(SimTime until = SimTime::max());

 private:
  EventQueue queue_;
  std::vector<Model*> models_;
  SimTime now_ = SimTime::zero();
};

}  // namespace k3::engine
