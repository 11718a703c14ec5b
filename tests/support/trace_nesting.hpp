#pragma once
// What a trace viewer needs of a Chrome/Perfetto trace's tracks (results/trace_tracks.hpp): integer ids, and slices
// of one track that nest.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace k3::test {


// Slices of one track of a viewer's trace must nest: sorted by start (the longer first at one start), each starts
// at or after the end of every slice still open, or ends inside the innermost one. Returns what breaks that.
inline std::vector<std::string> nesting_faults(const nlohmann::json& trace) {
  struct Span {
    std::int64_t start, end;
    std::string name;
  };
  std::map<std::pair<int, int>, std::vector<Span>> tracks;
  std::vector<std::string> faults;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    if (!e.at("tid").is_number_integer() || !e.at("pid").is_number_integer()) {
      faults.push_back("a slice with a pid or tid that is not an integer: " + e.dump());
      continue;
    }
    const auto start = std::llround(e.at("ts").get<double>() * 1e3);
    tracks[{e.at("pid").get<int>(), e.at("tid").get<int>()}].push_back(
        {start, start + std::llround(e.at("dur").get<double>() * 1e3), e.at("name").get<std::string>()});
  }
  for (auto& [track, spans] : tracks) {
    std::stable_sort(spans.begin(), spans.end(),
                     [](const Span& a, const Span& b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
    std::vector<const Span*> open;
    for (const auto& s : spans) {
      while (!open.empty() && open.back()->end <= s.start) open.pop_back();
      if (!open.empty() && s.end > open.back()->end) {
        faults.push_back("pid " + std::to_string(track.first) + " tid " + std::to_string(track.second) + ": '" + s.name +
                         "' overlaps '" + open.back()->name + "' without nesting");
      }
      open.push_back(&s);
    }
  }
  return faults;
}


}  // namespace k3::test
