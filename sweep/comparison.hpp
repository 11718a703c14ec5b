#pragma once
// Steps side by side: the JSON `k3sim compare` prints and its review report reads, also built by
// `k3sim report diff` from two saved `k3sim run --json` results. One entry per variant, then one row per
// compared quantity with each variant's value and its change against the first, and the fastest variant
// with how often it stays fastest over paired band samples.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace k3::sweep {

// {"name", "source", "result": step, "memory_headroom_bytes_per_gpu", "link_bytes": {class: B},
//  "breakdown_s": {cause: s}} from a step's JSON (results::step_to_json, with or without its band).
nlohmann::json variant_entry(const std::string& name, const std::string& source, const nlohmann::json& step);

// {"baseline", "variants", "metrics": [{"pointer", "label", "unit", "values": [{"value", "delta",
//  "delta_fraction"} or null]}], "winner": {"name", "by", ["samples", "holds_in_samples", "holds_across_band"]}}.
// `samples[i]` are variant i's band samples of step time, paired across variants; empty: no band.
nlohmann::json comparison_json(const nlohmann::json& entries, const std::vector<std::vector<double>>& samples);

}  // namespace k3::sweep
