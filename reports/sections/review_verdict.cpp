// The verdict: who wins on step time, cost and memory headroom, by how much, why, and how sure we are.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include "reports/sections/review_parts.hpp"
#include "reports/text.hpp"

namespace k3::reports::review {

namespace {

struct Metric {
  std::string label;     // "step time"
  std::string pointer;   // inside a variant entry: "/result/step_time_s"
  bool lower_is_better;
  std::string (*text)(double);
};

std::string gib_text(double bytes) { return fmt::format("{:.1f} GiB", bytes / kGiB); }

std::optional<double> value_at(const VariantView& v, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  if (!v.entry->contains(p)) return std::nullopt;
  return v.entry->at(p).get<double>();
}

// Index of the best variant on a metric, and of the runner-up (-1 with one variant or no value).
std::pair<int, int> best_two(const std::vector<VariantView>& vs, const Metric& m) {
  int best = -1, second = -1;
  auto better = [&](double a, double b) { return m.lower_is_better ? a < b : a > b; };
  for (std::size_t i = 0; i < vs.size(); ++i) {
    const auto x = value_at(vs[i], m.pointer);
    if (!x) continue;
    const int k = static_cast<int>(i);
    if (best < 0 || better(*x, *value_at(vs[static_cast<std::size_t>(best)], m.pointer))) {
      second = best;
      best = k;
    } else if (second < 0 || better(*x, *value_at(vs[static_cast<std::size_t>(second)], m.pointer))) {
      second = k;
    }
  }
  return {best, second};
}

// "step time: k3, 42.6 s against 45.1 s for k3-448 (2.5 s or 5.5% less)"
std::string metric_sentence(const std::vector<VariantView>& vs, const Metric& m, int best, int second) {
  const auto& b = vs[static_cast<std::size_t>(best)];
  const double x = *value_at(b, m.pointer);
  if (second < 0) return fmt::format("{}: {} for {}.", m.label, m.text(x), b.name);
  const auto& r = vs[static_cast<std::size_t>(second)];
  const double y = *value_at(r, m.pointer);
  const double diff = std::fabs(x - y);
  return fmt::format("{}: {} wins with {} against {} for {} ({} or {} {}).", m.label, b.name, m.text(x), m.text(y),
                     r.name, m.text(diff), percent_text(y != 0 ? diff / std::fabs(y) : 0.0),
                     m.lower_is_better ? "less" : "more");
}

// The breakdown entries that account for most of the step-time difference between the two variants.
std::string causes_sentence(const VariantView& fast, const VariantView& slow) {
  std::map<std::string, double> delta;  // slow - fast, per breakdown entry
  for (const auto& [name, s] : slow.entry->at("breakdown_s").items()) delta[name] += s.get<double>();
  for (const auto& [name, s] : fast.entry->at("breakdown_s").items()) delta[name] -= s.get<double>();
  std::vector<std::pair<std::string, double>> sorted(delta.begin(), delta.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return std::fabs(a.second) > std::fabs(b.second); });
  const double total = slow.step_s() - fast.step_s();
  std::string out = fmt::format("Why: {} is {} slower than {}; the largest changes are ", slow.name,
                                seconds_text(total), fast.name);
  double covered = 0;
  const std::size_t n = std::min<std::size_t>(3, sorted.size());
  for (std::size_t i = 0; i < n; ++i) {
    covered += sorted[i].second;
    out += fmt::format("{}{} {}", i == 0 ? "" : (i + 1 == n ? " and " : ", "), sorted[i].first,
                       signed_seconds_text(sorted[i].second));
  }
  out += fmt::format(" (together {}; every other cause together {}; positive: slower in {}).",
                     signed_seconds_text(covered), signed_seconds_text(total - covered), slow.name);
  return out;
}

std::string band_sentence(const nlohmann::json& winner, const std::vector<VariantView>& vs) {
  std::string bands;
  double lo_of_slowest = 0, hi_of_fastest = 0;
  bool all_banded = true;
  for (const auto& v : vs) {
    if (!v.result().contains("band")) {
      all_banded = false;
      continue;
    }
    const auto& b = v.result().at("band").at("step_time_s");
    bands += fmt::format("{}{} {}..{}", bands.empty() ? "" : ", ", v.name, seconds_text(b.at("p10").get<double>()),
                         seconds_text(b.at("p90").get<double>()));
    if (v.name == winner.at("name").get<std::string>()) hi_of_fastest = b.at("p90").get<double>();
    else lo_of_slowest = lo_of_slowest == 0 ? b.at("p10").get<double>() : std::min(lo_of_slowest, b.at("p10").get<double>());
  }
  if (!winner.contains("samples")) {
    if (bands.empty() || !all_banded) {
      return "How sure: no uncertainty band was sampled, so the verdict rests on the plain runs alone.";
    }
    // Separate runs share no paired samples: all that can be said is whether the bands overlap.
    return fmt::format("How sure: the runs were not paired (separate scenarios), so only their bands can be set side "
                       "by side (step time P10..P90: {}); {}.",
                       bands,
                       hi_of_fastest < lo_of_slowest ? "they do not overlap, the step-time verdict holds across them"
                                                     : "they overlap, the step-time verdict is not settled by them");
  }
  const int holds = winner.at("holds_in_samples").get<int>(), n = winner.at("samples").get<int>();
  return fmt::format(
      "How sure: {} is the faster in {} of {} paired samples of the uncertainty band (step time P10..P90: {}), so "
      "the step-time verdict {}. The bands come from the registered ranges of every assumption and are narrower "
      "than the errors against published measurements (README, \"How far to trust it\").",
      winner.at("name").get<std::string>(), holds, n, bands,
      holds == n ? "holds across the band" : "does not hold across the band");
}

}  // namespace

void add_verdict(Report& report, const nlohmann::json& comparison, const std::vector<VariantView>& vs) {
  Section& s = report.add_section("verdict", "Verdict");
  const bool priced = std::all_of(vs.begin(), vs.end(), [](const VariantView& v) {
    return v.result().contains("cost_per_trillion_tokens_usd");
  });
  const std::vector<Metric> metrics{
      {"Step time", "/result/step_time_s", true, seconds_text},
      priced ? Metric{"Cost per trillion tokens", "/result/cost_per_trillion_tokens_usd", true, usd_text}
             : Metric{"GPU-hours per trillion tokens", "/result/gpu_hours_per_trillion_tokens", true,
                      [](double h) { return display_number(h, 3) + " GPU-h"; }},
      {"Memory headroom per GPU", "/memory_headroom_bytes_per_gpu", false, gib_text},
  };
  std::vector<std::string> sentences;
  std::map<std::string, std::vector<std::string>> wins;  // variant -> metrics it wins
  std::vector<std::string> detail;
  for (const auto& m : metrics) {
    const auto [best, second] = best_two(vs, m);
    if (best < 0) continue;
    std::string lower = m.label;
    if (!lower.empty()) lower[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(lower[0])));
    wins[vs[static_cast<std::size_t>(best)].name].push_back(lower);
    detail.push_back(metric_sentence(vs, m, best, second));
  }
  std::string headline;
  for (const auto& v : vs) {
    const auto it = wins.find(v.name);
    if (it == wins.end()) continue;
    std::string list;
    for (std::size_t i = 0; i < it->second.size(); ++i)
      list += (i == 0 ? "" : i + 1 == it->second.size() ? " and " : ", ") + it->second[i];
    headline += fmt::format("{}{} wins on {}", headline.empty() ? "" : "; ", v.name, list);
  }
  sentences.push_back(headline + ".");
  for (auto& d : detail) sentences.push_back(std::move(d));
  const auto [fast, slow] = best_two(vs, metrics.front());
  if (slow >= 0) sentences.push_back(causes_sentence(vs[static_cast<std::size_t>(fast)], vs[static_cast<std::size_t>(slow)]));
  sentences.push_back(band_sentence(comparison.at("winner"), vs));
  sentences.push_back("Serving cost: no serving scenario was compared; `k3sim compare` of two serving scenarios "
                      "(scenarios/serving/) gives $ per 1M output tokens side by side.");
  s.verdict(sentences);

  std::vector<Card> cards;
  for (const auto& v : vs) {
    const auto& r = v.result();
    cards.push_back({v.name + " step time", r.at("step_time_s").get<double>(), "s", v.pointer + "/result/step_time_s",
                     fmt::format("{:.2f} M tokens/s, {:.1f}% MFU", r.at("tokens_per_s").get<double>() / 1e6,
                                 100 * r.at("mfu").get<double>())});
  }
  for (const auto& v : vs) {
    const auto& r = v.result();
    if (priced) {
      cards.push_back({v.name + " cost per trillion tokens", r.at("cost_per_trillion_tokens_usd").get<double>(), "k USD",
                       v.pointer + "/result/cost_per_trillion_tokens_usd",
                       display_number(r.at("gpu_hours_per_trillion_tokens").get<double>(), 3) + " GPU-hours", 1e-3});
    }
  }
  for (const auto& v : vs) {
    cards.push_back({v.name + " HBM headroom", v.entry->at("memory_headroom_bytes_per_gpu").get<double>(), "GiB",
                     v.pointer + "/memory_headroom_bytes_per_gpu",
                     fmt::format("of {} per GPU", gib_text(v.result().at("hbm_bytes").get<double>())), 1 / kGiB});
  }
  s.cards(cards);
}

}  // namespace k3::reports::review
