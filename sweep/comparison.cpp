#include "sweep/comparison.hpp"

#include <algorithm>

namespace k3::sweep {

namespace {

// One compared quantity: JSON pointer into a variant's entry, label with unit.
struct Metric {
  std::string pointer;
  std::string label;
  std::string unit;
};

std::vector<Metric> metrics_of(const nlohmann::json& variants) {
  std::vector<Metric> m = {
      {"/result/step_time_s", "step time", "s"},
      {"/result/tokens_per_s", "throughput", "tokens/s"},
      {"/result/mfu", "MFU", "fraction of BF16 peak"},
      {"/memory_headroom_bytes_per_gpu", "memory headroom per GPU", "B"},
      {"/kv_cache/bytes_per_sequence", "KV cache + state per sequence at the planned context", "B"},
      {"/result/cost_per_trillion_tokens_usd", "cost per trillion tokens", "USD"},
  };
  // Union over variants of breakdown entries and link classes, in first-seen order.
  std::vector<std::string> seen;
  auto add = [&](const std::string& ptr, const std::string& label, const std::string& unit) {
    if (std::find(seen.begin(), seen.end(), ptr) != seen.end()) return;
    seen.push_back(ptr);
    m.push_back({ptr, label, unit});
  };
  for (const auto& v : variants) {
    for (const auto& b : v.at("result").at("breakdown")) {
      const auto name = b.at("name").get<std::string>();
      add((nlohmann::json::json_pointer("/breakdown_s") / name).to_string(), name, "s");
    }
  }
  // A whole run's goodput (compare --goodput): its P50s, and the time each cause costs the run.
  for (const auto& v : variants) {
    if (!v.at("result").contains("goodput")) continue;
    add("/result/goodput/effective_training_time/p50", "effective training time of the run (P50)", "fraction of the run");
    add("/result/goodput/goodput_tokens_per_s/p50", "goodput of the run (P50)", "tokens/s");
    for (const auto& [cause, s] : v.at("result").at("goodput").at("lost_s_mean_by_cause").items()) {
      add((nlohmann::json::json_pointer("/result/goodput/lost_s_mean_by_cause") / cause).to_string(),
          "run time lost: " + cause, "s");
    }
  }
  for (const auto& v : variants) {
    for (const auto& [cls, bytes] : v.at("link_bytes").items()) {
      add((nlohmann::json::json_pointer("/link_bytes") / cls).to_string(), "bytes moved on " + cls + " links", "B");
    }
  }
  return m;
}

// The variant with the shortest step, and in how many of the paired band samples it is still the fastest.
nlohmann::json winner_json(const nlohmann::json& list, const std::vector<std::vector<double>>& samples) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < list.size(); ++i) {
    if (list[i].at("result").at("step_time_s").get<double>() < list[best].at("result").at("step_time_s").get<double>()) best = i;
  }
  nlohmann::json w{{"name", list[best].at("name")}, {"by", "step time"}};
  const std::size_t n = samples.empty() ? 0 : samples.front().size();
  if (n == 0 || list.size() < 2) return w;
  int holds = 0;
  for (std::size_t s = 0; s < n; ++s) {
    bool fastest = true;
    for (std::size_t i = 0; i < samples.size(); ++i) fastest = fastest && (i == best || samples[best][s] < samples[i][s]);
    holds += fastest ? 1 : 0;
  }
  w["samples"] = n;
  w["holds_in_samples"] = holds;
  w["holds_across_band"] = holds == static_cast<int>(n);
  return w;
}

}  // namespace

nlohmann::json variant_entry(const std::string& name, const std::string& source, const nlohmann::json& step) {
  nlohmann::json e;
  e["name"] = name;
  e["source"] = source;
  e["result"] = step;
  e["memory_headroom_bytes_per_gpu"] = step.at("hbm_bytes").get<double>() - step.at("memory_bytes_per_gpu").get<double>();
  nlohmann::json links = nlohmann::json::object();
  for (const auto& l : step.at("links")) links[l.at("link_class").get<std::string>()] = l.at("bytes");
  e["link_bytes"] = links;
  nlohmann::json breakdown = nlohmann::json::object();
  for (const auto& b : step.at("breakdown")) {
    const auto cause = b.at("name").get<std::string>();
    breakdown[cause] = breakdown.value(cause, 0.0) + b.at("seconds").get<double>();
  }
  e["breakdown_s"] = breakdown;
  return e;
}

nlohmann::json comparison_json(const nlohmann::json& list, const std::vector<std::vector<double>>& samples) {
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& m : metrics_of(list)) {
    const nlohmann::json::json_pointer ptr(m.pointer);
    const bool base_has = list[0].contains(ptr);
    const double base = base_has ? list[0].at(ptr).get<double>() : 0;
    nlohmann::json row{{"pointer", m.pointer}, {"label", m.label}, {"unit", m.unit}};
    auto& values = row["values"] = nlohmann::json::array();
    for (const auto& v : list) {
      if (!v.contains(ptr)) {
        values.push_back(nullptr);  // this variant has no such entry (no price, no such link class)
        continue;
      }
      const double x = v.at(ptr).get<double>();
      nlohmann::json cell{{"value", x}};
      if (base_has) {
        cell["delta"] = x - base;
        if (base != 0) cell["delta_fraction"] = (x - base) / base;
      }
      values.push_back(cell);
    }
    metrics.push_back(row);
  }
  return {{"baseline", list[0].at("name")}, {"variants", list}, {"metrics", metrics}, {"winner", winner_json(list, samples)}};
}

}  // namespace k3::sweep
