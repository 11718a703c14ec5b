#pragma once
// Pending events of one simulation, ordered by (time, priority, insertion sequence).
//
// The sequence number makes equal-time, equal-priority events fire in the order they were scheduled, so a
// run is bit-for-bit repeatable. Callbacks live in a slot pool next to the heap; the heap itself holds small
// plain entries so that sifting moves 24 bytes, not a std::function. Cancelling bumps the slot's generation;
// the stale heap entry is skipped when it surfaces.
#include <cstdint>
#include <vector>

#include "core/units.hpp"
#include "sim/engine/callback.hpp"

namespace k3::engine {

using core::SimTime;

// Lower priority values fire first among events at the same time.
using EventPriority = std::int32_t;

// Identifies one scheduled event; stays safe to use (cancel is a no-op) after the event fired.
struct EventHandle {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

class EventQueue {
 public:
  EventHandle schedule(SimTime time, EventPriority priority, EventCallback callback);
  // Returns true when the event was still pending.
  bool cancel(EventHandle handle);
  bool pending(EventHandle handle) const;

  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }
  // Time of the earliest pending event; SimTime::max() when empty.
  SimTime next_time();
  // Removes the earliest pending event and returns its time and callback. Precondition: !empty().
  SimTime pop(EventCallback& callback_out);

 private:
  struct Entry {
    SimTime time;
    std::uint64_t order;  // priority in the high bits, insertion sequence in the low 40 bits
    std::uint32_t slot;
    std::uint32_t generation;
  };
  struct Slot {
    EventCallback callback;
    std::uint32_t generation = 0;
  };
  static bool before(const Entry& a, const Entry& b) {
    return a.time < b.time || (a.time == b.time && a.order < b.order);
  }
  void push_heap(Entry e);
  Entry pop_heap();
  void drop_cancelled_top();
  void release(std::uint32_t slot);

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t sequence_ = 0;
  std::size_t live_ = 0;
};

}  // namespace k3::engine
