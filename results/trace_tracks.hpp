#pragma once
// Tracks of a Chrome/Perfetto trace that a viewer can draw. Perfetto reads the complete slices ("ph": "X") of one
// thread track as a stack: two slices on it must be disjoint or one inside the other, and a slice that ends inside
// another's span is dropped or misdrawn. Work that runs side by side on one stream (the two micro-batches of an
// overlapped forward-and-backward pass, two all-to-alls in flight) goes to a lane of its own: a further track with
// the stream's name and its lane. Thread ids are integers, numbered per process in the order the tracks appear.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace k3::results {

class TraceTracks {
 public:
  // A complete slice on `track` (the stream's name, shown on the track) of process `pid`; `event` holds its name,
  // category and args. Times are rounded to whole nanoseconds, as a viewer stores them, before lanes are chosen.
  // Returns the slice's index.
  std::size_t add(int pid, const std::string& track, nlohmann::json event, double start_us, double end_us);
  // Chooses each slice's lane; after this, tid() is valid and no more slices may be added.
  void assign();
  int tid(std::size_t slice) const { return slices_[slice].tid; }
  int pid(std::size_t slice) const { return slices_[slice].pid; }
  // Appends every slice with its pid, integer tid, ts and dur, and a thread_name and thread_sort_index per track.
  void emit(nlohmann::json& events) const;

 private:
  struct Slice {
    int pid = 0;
    std::size_t track = 0;  // index into tracks_
    nlohmann::json event;
    std::int64_t start_ns = 0, end_ns = 0;
    int tid = -1;
  };
  struct Track {
    int pid = 0;
    std::string name;
    int lanes = 0;
    int first_tid = 0;
  };
  std::vector<Slice> slices_;
  std::vector<Track> tracks_;
  std::map<std::pair<int, std::string>, std::size_t> track_index_;
  bool assigned_ = false;
};

}  // namespace k3::results
