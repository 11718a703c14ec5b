#include "sim/engine/simulator.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace k3::engine {

EventHandle Simulator::schedule_at(SimTime at, EventCallback callback, EventPriority priority) {
  K3SIM_ASSERT(at >= now_, "event scheduled in the past");
  return queue_.schedule(at, priority, std::move(callback));
}

std::uint64_t Simulator::run(SimTime until) {
  std::uint64_t executed = 0;
  EventCallback callback;
  while (true) {
    const SimTime queue_time = queue_.next_time();
    SimTime model_time = SimTime::max();
    for (Model* m : models_) model_time = std::min(model_time, m->next_event_time());
    const SimTime next = std::min(queue_time, model_time);
    if (next == SimTime::max() || next > until) {
      if (until != SimTime::max() && until > now_) now_ = until;
      break;
    }
    K3SIM_ASSERT(next >= now_, "a model reported an event in the past");
    now_ = next;
    // Queue events at an instant run before the models settle it, so that every flow started at one
    // instant is solved together instead of once per start.
    if (queue_time == next) {
      queue_.pop(callback);
      callback();
      ++executed;
      continue;
    }
    for (Model* m : models_) {
      if (m->next_event_time() == now_) m->advance_to(now_);
    }
  }
  return executed;
}

}  // namespace k3::engine
