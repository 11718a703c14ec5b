#pragma once
// Progress of a command that takes more than a few seconds, on stderr: on a terminal one bar redrawn in place with
// counts, rate and ETA; elsewhere plain lines (about twenty over the run) or nothing, as the command chooses; nothing
// with --quiet. Counts are of what the command actually does (points, families, variants), never of estimates.
// Thread-safe.
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>

namespace k3::core {

enum class ProgressMode { quiet, lines, bar };

// `quiet`: the command's --quiet; `terminal`: stderr is a terminal; `lines_elsewhere`: batch commands (sweep, plan)
// log plain lines when stderr is a file, the others stay quiet there.
ProgressMode progress_mode(bool quiet, bool terminal, bool lines_elsewhere);

// "42 s", "3 min 05 s", "2 h 10 min".
std::string format_duration(double seconds);

class Progress {
 public:
  // `label` begins each plain line ("sweep", "plan"); `unit` names what is counted ("points", "families").
  Progress(std::size_t total, std::FILE* out, ProgressMode mode, std::string label, std::string unit = "points");
  void done_one();
  // For MPI: rank 0 sees how many points were handed out, not when other ranks finish them.
  void set_done(std::size_t done);
  // What runs now ("variant k3-448"), shown after the counts until the next call.
  void doing(std::string what);
  void finish();

 private:
  void draw(bool last);
  std::size_t total_;
  std::size_t done_ = 0;
  std::FILE* out_;
  ProgressMode mode_;
  std::string label_, unit_, doing_;
  double start_s_;
  double last_draw_s_ = -1;
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t printed_done_ = kNone;  // plain-line mode: count on the last printed line
  std::mutex mutex_;
};

}  // namespace k3::core
