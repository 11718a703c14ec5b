#include "sim/engine/event_queue.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace k3::engine {

namespace {
constexpr int kSequenceBits = 40;
constexpr std::uint64_t kSequenceMask = (std::uint64_t{1} << kSequenceBits) - 1;
// Priorities are shifted into an unsigned 24-bit field so that negative priorities sort first.
constexpr std::int64_t kPriorityBias = std::int64_t{1} << 23;
// A 4-ary heap: half the levels of a binary heap, and the four children share a cache line or two.
constexpr std::size_t kArity = 4;
}  // namespace

EventHandle EventQueue::schedule(SimTime time, EventPriority priority, EventCallback callback) {
  K3SIM_ASSERT(priority > -kPriorityBias && priority < kPriorityBias, "event priority out of range");
  K3SIM_ASSERT(sequence_ <= kSequenceMask, "event sequence overflow");
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& s = slots_[slot];
  s.callback = std::move(callback);
  const auto biased = static_cast<std::uint64_t>(priority + kPriorityBias);
  push_heap(Entry{time, (biased << kSequenceBits) | sequence_++, slot, s.generation});
  ++live_;
  return EventHandle{slot, s.generation};
}

bool EventQueue::pending(EventHandle handle) const {
  return handle.valid() && handle.slot < slots_.size() && slots_[handle.slot].generation == handle.generation &&
         static_cast<bool>(slots_[handle.slot].callback);
}

bool EventQueue::cancel(EventHandle handle) {
  if (!pending(handle)) return false;
  Slot& s = slots_[handle.slot];
  s.callback.reset();
  ++s.generation;  // the heap entry now refers to an old generation and is dropped when it surfaces
  --live_;
  return true;
}

void EventQueue::release(std::uint32_t slot) {
  ++slots_[slot].generation;
  free_slots_.push_back(slot);
}

void EventQueue::drop_cancelled_top() {
  while (!heap_.empty() && slots_[heap_.front().slot].generation != heap_.front().generation) {
    const Entry e = pop_heap();
    free_slots_.push_back(e.slot);  // generation was already bumped by cancel()
  }
}

SimTime EventQueue::next_time() {
  drop_cancelled_top();
  return heap_.empty() ? SimTime::max() : heap_.front().time;
}

SimTime EventQueue::pop(EventCallback& callback_out) {
  drop_cancelled_top();
  K3SIM_ASSERT(!heap_.empty(), "pop on an empty event queue");
  const Entry e = pop_heap();
  callback_out = std::move(slots_[e.slot].callback);
  release(e.slot);
  --live_;
  return e.time;
}

void EventQueue::push_heap(Entry e) {
  heap_.push_back(e);
  std::size_t i = heap_.size() - 1;
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

EventQueue::Entry EventQueue::pop_heap() {
  const Entry top = heap_.front();
  const Entry last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  std::size_t i = 0;
  while (true) {
    const std::size_t first = kArity * i + 1;
    if (first >= n) break;
    const std::size_t end = std::min(first + kArity, n);
    std::size_t best = first;
    for (std::size_t c = first + 1; c < end; ++c)
      if (before(heap_[c], heap_[best])) best = c;
    if (!before(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
  return top;
}

}  // namespace k3::engine
