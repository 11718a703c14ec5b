#pragma once
// Wall-clock seconds from a steady clock, for reporting how long a search or a sweep took (never for a
// simulated time, which is core::SimTime).
#include <chrono>

namespace k3::core {

inline double wall_clock_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace k3::core
