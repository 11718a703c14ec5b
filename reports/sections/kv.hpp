#pragma once
// The KV-cache budget of `k3sim kv` as report sections, drawn from the command's JSON so that --json and
// --report hold the same numbers (every card and cell keyed with its pointer, e.g. "/rows/3/max_batch").
//
// JSON read: {"gpu": {"name", "hbm_bytes", "source"}, "gpus", "weight_bytes_per_param", "reserve_fraction",
//   "rows": [{"model", "note", "context", "kv_cache_bytes_per_token", "state_bytes_per_sequence",
//   "bytes_per_sequence", "bytes_per_sequence_per_gpu", "weight_bytes_per_gpu", "free_bytes_per_gpu",
//   "max_batch", ["batch", "batch_bytes_per_gpu", "batch_fits"]}]}
#include <nlohmann/json.hpp>

#include <string>

#include "reports/report.hpp"

namespace k3::reports {

// Section "kv": cache and state per sequence against context length (log-log), the batch that fits per
// context (grouped bars, the requested batch as a line), and the full table. `key_prefix` is where `kv`
// sits in the command's --json output ("" when it is the whole output).
void add_kv_section(Report& report, const nlohmann::json& kv);
void fill_kv_section(Section& section, const nlohmann::json& kv, const std::string& key_prefix);

// `k3sim kv --report path`: summary cards for the first model at its longest context, the kv section and
// the run as made. Throws core::InputError naming --report when the file cannot be written.
void write_kv_report(const std::string& path, const nlohmann::json& kv, RunInfo info);

}  // namespace k3::reports
