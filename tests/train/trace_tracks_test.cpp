#include <gtest/gtest.h>

#include <map>
#include <string>

#include "results/trace_tracks.hpp"
#include "tests/support/trace_nesting.hpp"

TEST(TraceTracks, SlicesThatOverlapWithoutNestingGoToLanesOfTheirOwn) {
  // On one stream of pid 3: A [0, 10] us; B [2, 5] inside A (lane 0, nested); C [4, 12] crosses A's end (lane 1);
  // D [10, 11] starts as A ends (lane 0 again). Another stream of pid 3 comes next: tid 2.
  k3::results::TraceTracks tracks;
  const auto a = tracks.add(3, "compute stream", {{"name", "A"}}, 0, 10);
  const auto b = tracks.add(3, "compute stream", {{"name", "B"}}, 2, 5);
  const auto c = tracks.add(3, "compute stream", {{"name", "C"}}, 4, 12);
  const auto d = tracks.add(3, "compute stream", {{"name", "D"}}, 10, 11);
  const auto e = tracks.add(3, "DP stream", {{"name", "E"}}, 1, 3);
  tracks.assign();
  EXPECT_EQ(tracks.tid(a), 0);
  EXPECT_EQ(tracks.tid(b), 0);
  EXPECT_EQ(tracks.tid(c), 1);
  EXPECT_EQ(tracks.tid(d), 0);
  EXPECT_EQ(tracks.tid(e), 2);
  nlohmann::json events = nlohmann::json::array();
  tracks.emit(events);
  std::map<int, std::string> names;
  for (const auto& ev : events) {
    if (ev.at("name") == "thread_name") names[ev.at("tid").get<int>()] = ev.at("args").at("name").get<std::string>();
  }
  EXPECT_EQ(names, (std::map<int, std::string>{{0, "compute stream"}, {1, "compute stream (side by side, 2)"}, {2, "DP stream"}}));
  EXPECT_TRUE(k3::test::nesting_faults({{"traceEvents", events}}).empty());
  // The checker itself finds a crossing pair.
  const nlohmann::json crossing = {{"traceEvents",
                                    {{{"ph", "X"}, {"pid", 0}, {"tid", 0}, {"ts", 0.0}, {"dur", 10.0}, {"name", "A"}},
                                     {{"ph", "X"}, {"pid", 0}, {"tid", 0}, {"ts", 4.0}, {"dur", 8.0}, {"name", "C"}}}}};
  EXPECT_EQ(k3::test::nesting_faults(crossing).size(), 1u);
}

