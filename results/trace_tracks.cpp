#include "results/trace_tracks.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace k3::results {

std::size_t TraceTracks::add(int pid, const std::string& track, nlohmann::json event, double start_us, double end_us) {
  K3SIM_ASSERT(!assigned_, "a trace slice added after its tracks were assigned");
  const auto [it, added] = track_index_.try_emplace({pid, track}, tracks_.size());
  if (added) tracks_.push_back({pid, track, 0, 0});
  const std::size_t t = it->second;
  const auto start = std::llround(start_us * 1e3), end = std::max(start, std::llround(end_us * 1e3));
  slices_.push_back({pid, t, std::move(event), start, end, -1});
  return slices_.size() - 1;
}

void TraceTracks::assign() {
  assigned_ = true;
  // Per track, slices by start (the longer first at one start, so that it holds the ones inside it); each goes to
  // the first lane where it starts after the open slices end or lies inside the innermost one still open.
  std::vector<std::vector<std::size_t>> by_track(tracks_.size());
  for (std::size_t i = 0; i < slices_.size(); ++i) by_track[slices_[i].track].push_back(i);
  std::vector<int> lane_of(slices_.size(), 0);
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    auto& order = by_track[t];
    std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) {
      const auto &x = slices_[a], &y = slices_[b];
      return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.end_ns > y.end_ns;
    });
    std::vector<std::vector<std::int64_t>> open;  // per lane: ends of the slices still open, innermost last
    for (std::size_t i : order) {
      const auto& s = slices_[i];
      std::size_t lane = 0;
      for (; lane < open.size(); ++lane) {
        auto& stack = open[lane];
        while (!stack.empty() && stack.back() <= s.start_ns) stack.pop_back();
        if (stack.empty() || s.end_ns <= stack.back()) break;
      }
      if (lane == open.size()) open.emplace_back();
      open[lane].push_back(s.end_ns);
      lane_of[i] = static_cast<int>(lane);
    }
    tracks_[t].lanes = std::max<int>(1, static_cast<int>(open.size()));
  }
  std::map<int, int> next_tid;
  for (auto& track : tracks_) {
    track.first_tid = next_tid[track.pid];
    next_tid[track.pid] += track.lanes;
  }
  for (std::size_t i = 0; i < slices_.size(); ++i) slices_[i].tid = tracks_[slices_[i].track].first_tid + lane_of[i];
}

void TraceTracks::emit(nlohmann::json& events) const {
  K3SIM_ASSERT(assigned_, "trace tracks emitted before they were assigned");
  for (const auto& s : slices_) {
    auto e = s.event;
    e["ph"] = "X";
    e["pid"] = s.pid;
    e["tid"] = s.tid;
    e["ts"] = static_cast<double>(s.start_ns) / 1e3;
    e["dur"] = static_cast<double>(s.end_ns - s.start_ns) / 1e3;
    events.push_back(std::move(e));
  }
  for (const auto& t : tracks_) {
    for (int lane = 0; lane < t.lanes; ++lane) {
      const int tid = t.first_tid + lane;
      const std::string name = lane == 0 ? t.name : fmt::format("{} (side by side, {})", t.name, lane + 1);
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", t.pid}, {"tid", tid}, {"args", {{"name", name}}}});
      events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", t.pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
    }
  }
}

}  // namespace k3::results
