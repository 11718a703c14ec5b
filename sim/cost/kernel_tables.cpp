#include "sim/cost/kernel_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/json_reader.hpp"
#include "core/text_file.hpp"

namespace k3::cost {

using nlohmann::json;

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

std::string canonical_key(std::string_view op_class, const std::map<std::string, std::string>& keys) {
  std::string k(op_class);
  for (const auto& [name, value] : keys) k += "|" + name + "=" + value;
  return k;
}

// Where `x` falls on `values`: the lower grid index and the log-space weight of the upper one. Below the range the
// weight is 0 at the first point (the floor rule); above it, the last point times x / last (`scale`).
struct Bracket {
  std::size_t lo = 0;
  double t = 0;
  bool outside = false;
  double scale = 1;
};

Bracket bracket(const std::vector<double>& values, double x) {
  if (values.size() == 1) return {0, 0.0, x != values[0]};
  if (x <= values.front()) return {0, 0.0, x < values.front()};
  if (x > values.back()) return {values.size() - 1, 0.0, true, x / values.back()};
  const auto hi = static_cast<std::size_t>(std::upper_bound(values.begin(), values.end(), x) - values.begin());
  const std::size_t lo = hi - 1;
  if (x == values[lo]) return {lo, 0.0, false};
  const double t = (std::log(x) - std::log(values[lo])) / (std::log(values[hi]) - std::log(values[lo]));
  return {lo, t, false};
}

}  // namespace

std::size_t KernelTable::cell(std::span<const std::size_t> index) const {
  std::size_t flat = 0;
  for (std::size_t a = 0; a < axes.size(); ++a) flat = flat * axes[a].values.size() + index[a];
  return flat;
}

std::optional<TableLookup> KernelTable::latency(std::span<const double> point) const {
  K3SIM_ASSERT(point.size() == axes.size(), "kernel table " + label() + ": look-up with the wrong number of axes");
  constexpr std::size_t kMaxAxes = 6;
  K3SIM_ASSERT(axes.size() <= kMaxAxes, "kernel table " + label() + ": too many axes");
  Bracket b[kMaxAxes];
  bool outside = false;
  double scale = 1;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (!(point[a] > 0) || !std::isfinite(point[a])) return std::nullopt;
    b[a] = bracket(axes[a].values, point[a]);
    outside = outside || b[a].outside;
    scale *= b[a].scale;
  }
  std::size_t index[kMaxAxes];
  if (std::all_of(b, b + axes.size(), [](const Bracket& x) { return x.t == 0; })) {  // on a grid point: exactly it
    for (std::size_t a = 0; a < axes.size(); ++a) index[a] = b[a].lo;
    const double v = latency_us[cell(std::span<const std::size_t>(index, axes.size()))];
    if (std::isnan(v)) return std::nullopt;
    return TableLookup{v * scale, outside};
  }
  // Multilinear in log space over the 2^d corners; a corner of zero weight need not be measured.
  double log_latency = 0;
  for (unsigned corner = 0; corner < (1u << axes.size()); ++corner) {
    double w = 1;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const bool upper = (corner >> a) & 1u;
      w *= upper ? b[a].t : 1 - b[a].t;
      index[a] = b[a].lo + (upper && axes[a].values.size() > 1 ? 1 : 0);
    }
    if (w == 0) continue;
    const double v = latency_us[cell(std::span<const std::size_t>(index, axes.size()))];
    if (std::isnan(v)) return std::nullopt;
    log_latency += w * std::log(v);
  }
  return TableLookup{std::exp(log_latency) * scale, outside};
}

std::size_t KernelTable::measured_cells() const {
  return static_cast<std::size_t>(std::count_if(latency_us.begin(), latency_us.end(), [](double v) { return !std::isnan(v); }));
}

std::string KernelTable::label() const {
  std::string s = op_class;
  for (const auto& [k, v] : keys) s += " " + k + "=" + v;
  return s;
}

void KernelTables::index() {
  by_key_.clear();
  for (std::size_t i = 0; i < tables.size(); ++i) by_key_.emplace(canonical_key(tables[i].op_class, tables[i].keys), i);
}

const KernelTable* KernelTables::find(std::string_view op_class, const std::map<std::string, std::string>& keys) const {
  const auto it = by_key_.find(canonical_key(op_class, keys));
  return it == by_key_.end() ? nullptr : &tables[it->second];
}

std::vector<const KernelTable*> KernelTables::all(std::string_view op_class,
                                                  const std::map<std::string, std::string>& subset) const {
  std::vector<const KernelTable*> out;
  for (const auto& t : tables) {
    if (t.op_class != op_class) continue;
    const bool match = std::all_of(subset.begin(), subset.end(), [&](const auto& kv) {
      const auto it = t.keys.find(kv.first);
      return it != t.keys.end() && it->second == kv.second;
    });
    if (match) out.push_back(&t);
  }
  return out;
}

namespace {

// Axis values are counts: written as integers when they are, so that the shipped files stay small.
json axis_value(double v) {
  if (v == std::floor(v) && std::abs(v) < 9e15) return json(static_cast<std::int64_t>(v));
  return json(v);
}

json source_json(const TableSource& s) {
  return {{"file", s.file}, {"framework", s.framework}, {"selection", s.selection}, {"rows_read", s.rows_read}};
}

}  // namespace

json KernelTables::to_json() const {
  // Tables of one file share its source entry (hundreds of fused-MoE tables come from one CSV).
  json sources = json::array();
  std::map<std::string, std::size_t> source_index;
  json list = json::array();
  for (const auto& t : tables) {
    const std::string key = source_json(t.source).dump();
    auto [it, added] = source_index.emplace(key, sources.size());
    if (added) sources.push_back(source_json(t.source));
    json axes = json::array();
    for (const auto& a : t.axes) {
      json values = json::array();
      for (double v : a.values) values.push_back(axis_value(v));
      axes.push_back({{"name", a.name}, {"values", values}});
    }
    json lat = json::array();
    for (double v : t.latency_us) lat.push_back(std::isnan(v) ? json(nullptr) : json(v));
    list.push_back({{"op_class", t.op_class}, {"keys", t.keys}, {"source", it->second},
                    {"rows_kept", t.source.rows_kept}, {"axes", axes}, {"latency_us", lat}});
  }
  return {{"format", kFormat}, {"version", kVersion}, {"gpu", gpu},         {"device", device},
          {"origin", origin},  {"sources", sources},   {"tables", list}};
}

std::string KernelTables::dump() const {
  // One table per line: a regenerated file diffs table by table, and the file stays compact.
  json j = to_json();
  json list = std::move(j["tables"]);
  j.erase("tables");
  std::string out = j.dump();
  out.pop_back();  // the closing brace
  out += ",\"tables\":[\n";
  for (std::size_t i = 0; i < list.size(); ++i) out += list[i].dump() + (i + 1 < list.size() ? ",\n" : "\n");
  return out + "]}\n";
}

void KernelTables::save(const std::string& path) const { core::write_text_file(path, dump(), "--out"); }

KernelTables KernelTables::load(const std::string& path) {
  return from_json(core::read_json_file(path, "a kernel table file (k3sim calibrate --import-kernel-tables)"), path);
}

KernelTables KernelTables::from_json(const json& j, const std::string& file) {
  const core::JsonReader top(file, j, "");
  if (top.str("format") != kFormat) top.fail("format", "not a kernel table file", std::string(kFormat));
  if (top.number("version") != kVersion) top.fail("version", "unsupported version", std::to_string(kVersion));
  KernelTables out;
  out.gpu = top.str("gpu");
  out.device = top.str("device");
  out.origin = top.str("origin");
  const json& source_list = top.at("sources");
  if (!source_list.is_array()) top.fail("sources", "expected an array of sources");
  std::vector<TableSource> sources;
  for (std::size_t i = 0; i < source_list.size(); ++i) {
    const core::JsonReader src(file, source_list[i], fmt::format("sources[{}]", i));
    sources.push_back({src.str("file"), src.str("framework"), src.str("selection"),
                       static_cast<int>(src.non_negative("rows_read")), 0});
  }
  const json& list = top.at("tables");
  if (!list.is_array()) top.fail("tables", "expected an array of tables");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const core::JsonReader r(file, list[i], fmt::format("tables[{}]", i));
    KernelTable t;
    t.op_class = r.str("op_class");
    const json& keys = r.at("keys");
    if (!keys.is_object()) r.fail("keys", "expected an object of strings");
    for (const auto& [k, v] : keys.items()) {
      if (!v.is_string()) r.fail("keys." + k, "expected a string");
      t.keys[k] = v.get<std::string>();
    }
    const double source = r.non_negative("source");
    if (source != std::floor(source) || source >= static_cast<double>(sources.size())) {
      r.fail("source", "not an index into the file's sources", fmt::format("0..{}", sources.size() - 1));
    }
    t.source = sources[static_cast<std::size_t>(source)];
    t.source.rows_kept = static_cast<int>(r.non_negative("rows_kept"));
    const json& axes = r.at("axes");
    if (!axes.is_array() || axes.empty()) r.fail("axes", "expected a non-empty array of axes");
    std::size_t cells = 1;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const core::JsonReader ar(file, axes[a], r.key(fmt::format("axes[{}]", a)));
      TableAxis axis{ar.str("name"), {}};
      const json& values = ar.at("values");
      if (!values.is_array() || values.empty()) ar.fail("values", "expected a non-empty array of numbers");
      for (const auto& v : values) {
        if (!v.is_number() || !(v.get<double>() > 0)) ar.fail("values", "expected positive numbers");
        if (!axis.values.empty() && v.get<double>() <= axis.values.back()) ar.fail("values", "must increase strictly");
        axis.values.push_back(v.get<double>());
      }
      cells *= axis.values.size();
      t.axes.push_back(std::move(axis));
    }
    if (t.axes.size() > 6) r.fail("axes", "more than 6 axes", "at most 6");
    const json& lat = r.at("latency_us");
    if (!lat.is_array() || lat.size() != cells) {
      r.fail("latency_us", fmt::format("expected {} cells (the product of the axes' lengths)", cells));
    }
    t.latency_us.reserve(cells);
    for (const auto& v : lat) {
      if (v.is_null()) {
        t.latency_us.push_back(kMissing);
      } else if (v.is_number() && v.get<double>() > 0 && std::isfinite(v.get<double>())) {
        t.latency_us.push_back(v.get<double>());
      } else {
        r.fail("latency_us", "expected positive numbers or null (not measured)");
      }
    }
    out.tables.push_back(std::move(t));
  }
  out.index();
  return out;
}

}  // namespace k3::cost
