#pragma once
// Runs body(i) for every i in [0, n) on up to `threads` threads, the caller being one of them; indices are
// handed out in order. An exception is kept per index and the first one in index order is rethrown on the
// caller after every worker has stopped, so a failure reads the same whatever the thread count.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace k3::core {

template <typename Body>
void parallel_for(std::size_t n, int threads, Body&& body) {
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(n);
  const auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        body(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const std::size_t workers = std::clamp<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), 1,
                                                      std::max<std::size_t>(n, 1));
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(worker);
    worker();
  }  // joins
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace k3::core
