#pragma once
// A thread count as the user gave it (--jobs, -j, StepOptions::threads): 0 means one per hardware thread.
#include <algorithm>
#include <thread>

namespace k3::core {

inline int resolve_threads(int requested) {
  return requested > 0 ? requested : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace k3::core
