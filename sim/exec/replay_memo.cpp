#include "sim/exec/replay_memo.hpp"

#include <chrono>
#include <exception>

namespace k3::exec {

std::optional<ReplayRecord> ReplayMemo::get(const Key& key, bool wait, const std::function<ReplayRecord()>& replay) {
  std::unique_lock lock(mutex_);
  if (const auto it = records_.find(key); it != records_.end()) {
    const Shared record = it->second;
    if (!wait && record.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
    ++reused_;
    lock.unlock();
    return *record.get();
  }
  std::promise<std::shared_ptr<const ReplayRecord>> promise;
  records_.emplace(key, promise.get_future().share());
  lock.unlock();
  try {
    auto record = std::make_shared<const ReplayRecord>(replay());
    promise.set_value(record);
    return *record;
  } catch (...) {
    promise.set_exception(std::current_exception());
    throw;
  }
}

std::size_t ReplayMemo::reused() const {
  const std::lock_guard lock(mutex_);
  return reused_;
}

std::size_t ReplayMemo::replayed() const {
  const std::lock_guard lock(mutex_);
  return records_.size();
}

}  // namespace k3::exec
