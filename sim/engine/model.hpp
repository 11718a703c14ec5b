#pragma once
// The narrow interface between the event loop and a model that keeps its own notion of pending work
// (a network that re-solves rates, a compute stream). Like SimGrid's models: the loop asks every model
// when its next event is, advances time to the earliest one, and lets the due models catch up.
#include "core/units.hpp"

namespace k3::engine {

class Model {
 public:
  virtual ~Model() = default;
  // Earliest time at which the model has something to do; SimTime::max() when idle. May return the
  // current time when state changed at this instant (e.g. a flow started) and must be settled.
  virtual core::SimTime next_event_time() = 0;
  // Process everything due at `now` (never earlier than the last call). May run user callbacks.
  virtual void advance_to(core::SimTime now) = 0;
};

}  // namespace k3::engine
