// The pipeline Gantt of one step, thinned (see step.hpp), and the `k3sim run` report around it.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "reports/sections/step.hpp"
#include "reports/text.hpp"
#include "core/error.hpp"

namespace k3::reports {

namespace {

struct Track {
  int rank = 0;
  bool dp = false;
  bool operator<(const Track& o) const { return rank != o.rank ? rank < o.rank : dp < o.dp; }
};

// Ranks kept: all when few, else kMaxGanttRanks spread evenly from first to last.
std::set<int> kept_ranks(const std::set<int>& ranks) {
  if (ranks.size() <= static_cast<std::size_t>(kMaxGanttRanks)) return ranks;
  const std::vector<int> all(ranks.begin(), ranks.end());
  std::set<int> out;
  for (int i = 0; i < kMaxGanttRanks; ++i)
    out.insert(all[static_cast<std::size_t>(i) * (all.size() - 1) / static_cast<std::size_t>(kMaxGanttRanks - 1)]);
  return out;
}

// Merges neighbouring same-kind spans whose gap is below `gap_s`; labels count the passes merged.
std::vector<GanttInterval> merge(std::vector<const train::TraceSpan*> spans, int track, double gap_s, double scale) {
  std::sort(spans.begin(), spans.end(), [](auto* a, auto* b) { return a->start_s < b->start_s; });
  std::vector<GanttInterval> out;
  int count = 0;
  std::string first;
  for (const auto* s : spans) {
    if (!out.empty() && out.back().kind == s->kind && s->start_s * scale - out.back().end <= gap_s * scale) {
      out.back().end = std::max(out.back().end, s->end_s * scale);
      ++count;
      out.back().label = fmt::format("{} .. {} ({} passes)", first, s->name, count);
      continue;
    }
    out.push_back({track, s->start_s * scale, s->end_s * scale, s->kind, s->name});
    first = s->name;
    count = 1;
  }
  return out;
}

// When alternating kinds (1F1B's F, B, F, B) leave too many bars: one bar per time bin of end_s / (budget - 1),
// coloured by the kind that fills most of it, its tooltip counting the passes of each kind inside.
std::vector<GanttInterval> bin(std::vector<const train::TraceSpan*> spans, int track, double end_s, double scale) {
  std::sort(spans.begin(), spans.end(), [](auto* a, auto* b) { return a->start_s < b->start_s; });
  const double width = end_s / static_cast<double>(kMaxGanttMarksPerTrack - 1);  // span starts < end_s: bins 0..budget-1
  std::vector<GanttInterval> out;
  std::size_t i = 0;
  while (i < spans.size()) {
    const auto cell = static_cast<long>(spans[i]->start_s / width);
    std::map<std::string, std::pair<int, double>> kinds;  // kind -> (passes, seconds)
    double lo = spans[i]->start_s, hi = spans[i]->end_s;
    for (; i < spans.size() && static_cast<long>(spans[i]->start_s / width) == cell; ++i) {
      auto& k = kinds[spans[i]->kind];
      ++k.first;
      k.second += spans[i]->end_s - spans[i]->start_s;
      hi = std::max(hi, spans[i]->end_s);
    }
    std::string dominant, label;
    double most = -1;
    for (const auto& [kind, use] : kinds) {
      if (use.second > most) most = use.second, dominant = kind;
      label += fmt::format("{}{} {}", label.empty() ? "" : ", ", use.first, kind);
    }
    out.push_back({track, lo * scale, hi * scale, dominant, "merged to fit: " + label});
  }
  return out;
}

}  // namespace

GanttChart step_gantt(std::span<const train::TraceSpan> trace) {
  K3SIM_ASSERT(!trace.empty(), "a step timeline needs a trace");
  std::set<int> compute_ranks;
  double end_s = 0;
  for (const auto& s : trace) {
    if (s.track != "dp") compute_ranks.insert(s.rank);
    end_s = std::max(end_s, s.end_s);
  }
  const std::set<int> ranks = kept_ranks(compute_ranks);
  std::map<Track, std::vector<const train::TraceSpan*>> by_track;
  for (const auto& s : trace) {
    const bool dp = s.track == "dp";
    if (ranks.count(s.rank)) by_track[{s.rank, dp}].push_back(&s);  // a kept rank's passes and its DP work
  }
  GanttChart g;
  g.title = "One training step";
  const bool ms = end_s < 1;
  const double scale = ms ? 1e3 : 1.0;
  g.time_axis = {"Time", ms ? "ms" : "s", false};
  // Half a pixel of an ~800 px plot; doubled until every track fits its mark budget.
  const double half_pixel_s = end_s / 1600;
  for (const auto& [track, spans] : by_track) {
    const int index = static_cast<int>(g.tracks.size());
    g.tracks.push_back(track.dp ? fmt::format("rank {} DP + optimizer", track.rank) : fmt::format("rank {}", track.rank));
    auto merged = merge(spans, index, half_pixel_s, scale);
    if (merged.size() > kMaxGanttMarksPerTrack) merged = bin(spans, index, end_s, scale);
    g.intervals.insert(g.intervals.end(), merged.begin(), merged.end());
  }
  g.size = {960, std::max(220.0, 110 + 30.0 * static_cast<double>(g.tracks.size()))};
  return g;
}

Assumption split_assumption(const std::string& text) {
  std::string what = text, source = "k3sim model";
  // "what: source" (the source may itself hold colons), unless the head is a short topic ("DP: ...").
  if (const auto colon = text.find(": "); colon != std::string::npos && colon >= 12) {
    source = text.substr(colon + 2);
    what = text.substr(0, colon);
  } else if (!text.empty() && text.back() == ')') {
    // "what (source)": the last balanced parenthesis group.
    int depth = 0;
    for (std::size_t i = text.size(); i-- > 0;) {
      depth += text[i] == ')' ? 1 : text[i] == '(' ? -1 : 0;
      if (depth == 0) {
        source = text.substr(i + 1, text.size() - i - 2);
        what = text.substr(0, i);
        break;
      }
    }
  }
  while (!what.empty() && (what.back() == ' ' || what.back() == ';' || what.back() == ',')) what.pop_back();
  // A short "topic: detail" head becomes the name.
  if (const auto head = what.find(": "); head != std::string::npos && head <= 24)
    return {what.substr(0, head), what.substr(head + 2), source};
  // A provenance entry, "id = value (range, kind)" (core::describe): the id is the name.
  if (const auto eq = what.find(" = "); eq != std::string::npos && what.find(' ') == eq)
    return {what.substr(0, eq), what.substr(eq + 3), source};
  return {what, "", source};
}

namespace {

// The run's verdict in words: how long, where the time goes, whether it fits, how sure.
std::vector<std::string> run_verdict(const train::StepResult& r, const nlohmann::json& step,
                                     const std::string& trace_path) {
  std::vector<std::string> out;
  out.push_back(fmt::format("One step of {} on {} GPUs takes {} s: {} M tokens/s, {:.1f}% MFU{}.", r.model, r.gpus,
                            display_number(r.step_time_s, 3), display_number(r.tokens_per_s / 1e6, 3), 100 * r.mfu,
                            r.cost_per_trillion_tokens > 0
                                ? fmt::format(", ${} k per trillion tokens", display_number(r.cost_per_trillion_tokens / 1e3, 3))
                                : std::string{}));
  auto causes = r.breakdown;
  std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.seconds > b.seconds; });
  std::string top;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, causes.size()); ++i) {
    top += fmt::format("{}{} {} s ({:.0f}%)", i == 0 ? "" : ", ", causes[i].name, display_number(causes[i].seconds, 3),
                       100 * causes[i].seconds / r.step_time_s);
  }
  out.push_back("Where the time goes: " + top + ".");
  const double used = train::memory_total(r.memory);
  out.push_back(r.fits_in_memory
                    ? fmt::format("Memory fits: {} GiB of {} GiB HBM on the fullest GPU.", display_number(used / (1 << 30), 3),
                                  display_number(r.hbm_bytes / (1 << 30), 3))
                    : fmt::format("Memory does NOT fit: {} GiB against {} GiB HBM.", display_number(used / (1 << 30), 3),
                                  display_number(r.hbm_bytes / (1 << 30), 3)));
  if (step.contains("band")) {
    const auto& b = step.at("band").at("step_time_s");
    out.push_back(fmt::format("How sure: P10..P90 of the step time over the registered ranges is {}..{} s "
                              "(narrower than the validation errors, README \"How far to trust it\").",
                              display_number(b.at("p10").get<double>(), 3), display_number(b.at("p90").get<double>(), 3)));
  }
  if (!trace_path.empty()) {
    out.push_back("Trace: " + trace_path + " (open it in ui.perfetto.dev or chrome://tracing): the pipeline ranks, "
                  "and one pass of each kind op by op on every GPU of the simulated group.");
  }
  return out;
}

}  // namespace

void write_step_report(const std::string& path, const train::StepResult& r, const nlohmann::json& step,
                       const std::string& command, const std::string& trace_path) {
  Report report(fmt::format("Training step: {}", r.scenario),
                fmt::format("{} on {} ({} GPUs), {} network model, seed {}.", r.model, r.topology, r.gpus,
                            r.network_model, r.seed));
  report.add_section("summary", "Summary").verdict(run_verdict(r, step, trace_path)).cards(step_cards(step));
  add_step_section(report, step, r.trace);
  RunInfo info;
  info.command = command;
  info.version = r.version;
  info.seed = r.seed;
  info.scenario_name = "Scenario YAML as run (after --set overrides and defaults)";
  info.scenario_text = r.scenario_yaml;
  for (const auto& a : r.assumptions) info.assumptions.push_back(split_assumption(a));
  report.add_run_info(info);
  report.write_html(path);
}

}  // namespace k3::reports
