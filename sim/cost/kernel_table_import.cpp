#include "sim/cost/kernel_table_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>

#include "core/csv_text.hpp"
#include "core/error.hpp"
#include "core/text_file.hpp"

namespace k3::cost {

using core::InputError;

namespace {

struct GpuFolder {
  const char* folder;
  const char* gpu;  // topologies/gpu_types.yaml
};
constexpr GpuFolder kGpus[] = {{"a100_sxm", "A100-SXM-80GB"}, {"h100_sxm", "H100-SXM"}, {"h200_sxm", "H200-SXM"},
                               {"b200_sxm", "B200"},          {"gb200", "GB200-B200"},  {"gb300", "GB300-B300"}};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  return out;
}

using Csv = core::CsvText;

Csv read_csv(const std::string& path, const std::string& name) {
  return core::parse_csv_text(core::read_text_file(path, "a CSV table of the kernel database"), name);
}

// One row of a CSV whose columns were looked up once: every read names the file, line and column when it fails.
class Columns {
 public:
  Columns(const Csv& csv, const std::vector<std::string>& wanted) : csv_(csv) {
    for (const auto& w : wanted) {
      const auto it = std::find(csv.header.begin(), csv.header.end(), w);
      if (it == csv.header.end()) {
        throw InputError({csv.file, w, 1}, "missing column", fmt::format("a header with {}", fmt::join(wanted, ", ")));
      }
      index_[w] = static_cast<std::size_t>(it - csv.header.begin());
    }
  }
  const std::string& text(std::size_t row, const std::string& column) const {
    return csv_.rows[row][index_.at(column)];
  }
  double number(std::size_t row, const std::string& column) const {
    return core::csv_number(text(row, column), csv_.file, column, csv_.lines[row]);
  }
  int line(std::size_t row) const { return csv_.lines[row]; }

 private:
  const Csv& csv_;
  std::map<std::string, std::size_t> index_;
};

using Keep = bool (*)(const Columns&, std::size_t);

bool is_power_of_two(double v) { return v >= 1 && v == std::floor(v) && (static_cast<long long>(v) & (static_cast<long long>(v) - 1)) == 0; }

struct Family {
  const char* folder;     // the family's folder under the GPU's
  const char* file;       // the CSV's name
  const char* op_class;
  std::vector<std::string> keys;
  std::vector<std::string> axes;
  const char* selection;  // in words, for the table's source
  Keep keep;
  std::vector<std::string> filter_columns = {};  // read by `keep` besides the keys and axes
  // Key columns an older file may lack, with the value such a file measured at (A100's SGLang 0.5.10 attention
  // table has no window_size column: it measured full attention only).
  std::map<std::string, std::string> absent_keys = {};
  std::string latency_column = "latency";  // the measured time's column
  double us_per_unit = 1000;               // its unit in microseconds (the database's `latency` is in ms)
};

// DeepEP normal mode's intranode rows from 4,096 tokens per rank up: where a dispatch is bound by bandwidth
// rather than by its launch and notify, and the part a training step's dispatch runs in (a few thousand tokens
// per micro-batch and rank); the small-token rows would add a sixth to the largest shipped file.
bool deepep_bandwidth_row(const Columns& c, std::size_t r) {
  return c.number(r, "node_num") == 1 && c.number(r, "num_token") >= 4096;
}

const std::vector<Family>& families() {
  static const std::vector<Family> f{
      {"gemm", "gemm_perf.csv", "gemm", {"kernel_source", "gemm_dtype"}, {"m", "n", "k"}, "m a power of two",
       [](const Columns& c, std::size_t r) { return is_power_of_two(c.number(r, "m")); }},
      {"moe", "moe_perf.csv", "moe",
       {"kernel_source", "moe_dtype", "hidden_size", "inter_size", "topk", "num_experts", "moe_ep_size", "distribution"},
       {"num_tokens"}, "BF16, FP8 block and NVFP4; balanced and power_law_1.2 distributions; moe_tp_size 1",
       [](const Columns& c, std::size_t r) {
         const auto& dtype = c.text(r, "moe_dtype");
         const auto& dist = c.text(r, "distribution");
         return (dtype == "bfloat16" || dtype == "fp8_block" || dtype == "nvfp4") &&
                (dist == "balanced" || dist == "power_law_1.2") && c.number(r, "moe_tp_size") == 1;
       },
       {"moe_tp_size"}},
      {"kda", "kda_perf.csv", "kda", {"kernel_source", "phase", "head_k_dim", "head_v_dim", "model_name"},
       {"batch_size", "seq_len", "num_k_heads"}, "phase context (prefill/forward)",
       [](const Columns& c, std::size_t r) { return c.text(r, "phase") == "context"; }},
      {"attention", "context_attention_perf.csv", "attention_context",
       {"kernel_source", "attn_dtype", "kv_cache_dtype", "head_dim", "window_size", "num_key_value_heads"},
       {"batch_size", "isl", "num_heads"}, "the KV cache in the attention's own dtype (a prefill or training step)",
       [](const Columns& c, std::size_t r) { return c.text(r, "kv_cache_dtype") == c.text(r, "attn_dtype"); }, {},
       {{"window_size", "0"}}},
      {"mla", "context_mla_perf.csv", "mla_context", {"kernel_source", "mla_dtype", "kv_cache_dtype"},
       {"batch_size", "isl", "num_heads"}, "all rows (num_heads is per GPU: num_heads x tp_size is the model's)", nullptr},
      {"comm", "nccl_perf.csv", "nccl", {"op_name", "nccl_dtype"}, {"num_gpus", "message_size"}, "all rows", nullptr},
      {"quantize", "computescale_perf.csv", "quantize_compute_scale", {"kernel_source", "quant_dtype"}, {"m", "k"},
       "all rows", nullptr},
      {"quantize", "scale_matrix_perf.csv", "quantize_scale_matrix", {"kernel_source", "quant_dtype"}, {"m", "k"},
       "all rows", nullptr},
      // transmit time at the best of 16 NVLink chunk sizes (the collector's test_intranode.py); dispatch sends FP8
      // tokens with their 1x128 scales, combine returns BF16.
      {"comm", "wideep_deepep_normal_perf.csv", "deepep_normal_dispatch",
       {"node_num", "hidden_size", "num_topk", "num_experts"}, {"dispatch_sms", "num_token"},
       "intranode (node_num 1), 4,096 tokens per rank or more; dispatch_transmit_us (FP8 payload)",
       deepep_bandwidth_row, {}, {}, "dispatch_transmit_us", 1},
      {"comm", "wideep_deepep_normal_perf.csv", "deepep_normal_combine",
       {"node_num", "hidden_size", "num_topk", "num_experts"}, {"combine_sms", "num_token"},
       "intranode (node_num 1), 4,096 tokens per rank or more; combine_transmit_us (BF16 payload)",
       deepep_bandwidth_row, {}, {}, "combine_transmit_us", 1},
  };
  return f;
}

struct ManifestEntry {
  std::string file;  // relative to the database folder
  std::map<std::string, std::string> constants;
};

// "framework=SGLang version=0.5.14 device=NVIDIA H200" -> {framework: SGLang, version: 0.5.14, device: NVIDIA H200}
std::map<std::string, std::string> parse_constants(const std::string& text) {
  std::map<std::string, std::string> out;
  std::string last;
  for (const auto& token : split(text, ' ')) {
    const auto eq = token.find('=');
    if (eq != std::string::npos) {
      last = token.substr(0, eq);
      out[last] = token.substr(eq + 1);
    } else if (!last.empty()) {
      out[last] += " " + token;
    }
  }
  return out;
}

std::vector<ManifestEntry> read_manifest(const std::string& dir) {
  const std::string path = dir + "/MANIFEST.csv";
  const Csv csv = read_csv(path, path);
  const Columns c(csv, {"file", "constant columns"});
  std::vector<ManifestEntry> out;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) out.push_back({c.text(r, "file"), parse_constants(c.text(r, "constant columns"))});
  return out;
}

// The word after `marker` in `text` (letters, digits and . / - _), "" when the marker is absent.
std::string word_after(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  if (at == std::string::npos) return "";
  std::size_t begin = at + marker.size();
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  std::size_t end = begin;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || std::string("./-_").find(text[end]) != std::string::npos)) {
    ++end;
  }
  return text.substr(begin, end - begin);
}

// "<repository> at commit <sha> of <date>" from the database's README ("repository X, ..., commit Y of DATE").
std::string read_origin(const std::string& dir) {
  const std::string readme = dir + "/README.md";
  if (!core::path_exists(readme)) return "kernel database at " + dir + " (no README naming its source)";
  const std::string text = core::read_text_file(readme, "the kernel database's README");
  const std::string repository = word_after(text, "(repository");
  const std::string commit = word_after(text, "commit");
  if (repository.empty() || commit.empty()) return "kernel database at " + dir + " (its README names no repository and commit)";
  const auto commit_at = text.find("commit " + commit);
  const std::string date = commit_at == std::string::npos ? "" : word_after(text.substr(commit_at), commit + " of");
  return fmt::format("{} at commit {}{}", repository, commit, date.empty() ? "" : " of " + date);
}

// Four significant digits (a rounding of at most 0.05%): the database's run-to-run spread is wider, and the shipped
// files stay under 1 MB for every GPU.
double round4(double v) { return std::stod(fmt::format("{:.4g}", v)); }

// Rows of one table before the grid is laid: axis values and latency per kept row.
struct Pending {
  std::map<std::string, std::string> keys;
  std::vector<std::vector<double>> points;
  std::vector<double> latency_us;
};

KernelTable lay_grid(const Family& f, Pending&& p, TableSource source) {
  KernelTable t;
  t.op_class = f.op_class;
  t.keys = std::move(p.keys);
  for (std::size_t a = 0; a < f.axes.size(); ++a) {
    std::vector<double> values;
    for (const auto& pt : p.points) values.push_back(pt[a]);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    t.axes.push_back({f.axes[a], std::move(values)});
  }
  std::size_t cells = 1;
  for (const auto& a : t.axes) cells *= a.values.size();
  t.latency_us.assign(cells, std::numeric_limits<double>::quiet_NaN());
  int duplicates = 0;
  std::vector<std::size_t> index(t.axes.size());
  for (std::size_t i = 0; i < p.points.size(); ++i) {
    for (std::size_t a = 0; a < t.axes.size(); ++a) {
      const auto& v = t.axes[a].values;
      index[a] = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), p.points[i][a]) - v.begin());
    }
    double& cell = t.latency_us[t.cell(index)];
    if (std::isnan(cell)) cell = p.latency_us[i];
    else ++duplicates;  // the first measurement of a configuration is kept
  }
  source.rows_kept = static_cast<int>(p.points.size()) - duplicates;
  if (duplicates > 0) source.selection += fmt::format("; {} repeated configurations (the first kept)", duplicates);
  t.source = std::move(source);
  return t;
}

std::vector<KernelTable> import_family(const std::string& dir, const ManifestEntry& entry, const Family& f) {
  const Csv csv = read_csv(dir + "/" + entry.file, entry.file);
  std::vector<std::string> wanted;
  std::map<std::string, std::string> fixed;  // absent key columns at their stated value
  for (const auto& k : f.keys) {
    const bool absent = std::find(csv.header.begin(), csv.header.end(), k) == csv.header.end();
    if (absent && f.absent_keys.count(k)) fixed[k] = f.absent_keys.at(k);
    else wanted.push_back(k);
  }
  wanted.insert(wanted.end(), f.axes.begin(), f.axes.end());
  wanted.insert(wanted.end(), f.filter_columns.begin(), f.filter_columns.end());
  wanted.push_back(f.latency_column);
  const Columns c(csv, wanted);
  std::map<std::string, Pending> tables;  // by the keys' text: a stable order
  int unmeasured = 0, kept_rows = 0;
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    const double latency = c.number(r, f.latency_column);
    if (latency < 0) {
      throw InputError({entry.file, f.latency_column, c.line(r)}, fmt::format("negative latency {}", latency),
                       fmt::format("a latency in {}, >= 0 (0: not measured)", f.us_per_unit == 1 ? "microseconds" : "milliseconds"));
    }
    std::vector<double> point;
    for (const auto& a : f.axes) {
      const double v = c.number(r, a);
      if (!(v > 0)) throw InputError({entry.file, a, c.line(r)}, fmt::format("shape value {} is not positive", v), "> 0");
      point.push_back(v);
    }
    if (f.keep && !f.keep(c, r)) continue;
    if (latency == 0) {
      ++unmeasured;
      continue;
    }
    std::map<std::string, std::string> keys;
    std::string key_text;
    for (const auto& k : f.keys) {
      keys[k] = fixed.count(k) ? fixed.at(k) : c.text(r, k);
      key_text += keys[k] + "|";
    }
    auto& pending = tables[key_text];
    pending.keys = std::move(keys);
    pending.points.push_back(std::move(point));
    pending.latency_us.push_back(round4(latency * f.us_per_unit));
    ++kept_rows;
  }
  const auto& k = entry.constants;
  const auto get = [&](const char* name) { const auto it = k.find(name); return it == k.end() ? std::string() : it->second; };
  std::string selection = f.selection;
  for (const auto& [column, value] : fixed) selection += fmt::format("; no {} column: taken as {}", column, value);
  if (unmeasured > 0) selection += fmt::format("; {} rows of latency 0 (not measured) dropped", unmeasured);
  std::vector<KernelTable> out;
  for (auto& [text, pending] : tables) {
    out.push_back(lay_grid(f, std::move(pending),
                           {entry.file, (get("framework") + " " + get("version")), selection,
                            static_cast<int>(csv.rows.size()), 0}));
  }
  return out;
}

}  // namespace

std::string aiconfigurator_folder(const std::string& gpu) {
  const std::string g = lower(gpu);
  for (const auto& e : kGpus) {
    if (g == e.folder || g == lower(e.gpu)) return e.folder;
  }
  return "";
}

std::string shipped_kernel_tables(const std::string& gpu) {
  const std::string folder = aiconfigurator_folder(gpu);
  if (folder.empty()) return "";
  const std::string path = std::string(K3SIM_KERNEL_TABLE_DIR) + "/" + folder + ".json";
  return core::path_exists(path) ? path : "";
}

std::shared_ptr<const KernelTables> shipped_kernel_tables_of(const std::string& gpu) {
  const std::string path = shipped_kernel_tables(gpu == "H800-SXM" ? "H100-SXM" : gpu);
  if (path.empty()) return nullptr;
  // A memo of immutable files: a plan or a band resolves its scenario thousands of times, and one parse of a table
  // file costs tens of milliseconds.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const KernelTables>> loaded;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = loaded[path];
  if (!slot) slot = std::make_shared<const KernelTables>(KernelTables::load(path));
  return slot;
}

KernelTables import_aiconfigurator(const std::string& dir, const std::string& gpu) {
  const std::string folder = aiconfigurator_folder(gpu);
  if (folder.empty()) {
    std::vector<std::string> names;
    for (const auto& e : kGpus) names.push_back(fmt::format("{} ({})", e.gpu, e.folder));
    throw InputError({"--gpu", "", 0}, "no kernel tables for GPU '" + gpu + "'", fmt::format("{}", fmt::join(names, ", ")));
  }
  if (!core::path_exists(dir + "/MANIFEST.csv")) {
    throw InputError({dir, "", 0}, "not a kernel database: no MANIFEST.csv in it",
                     "the folder shared/calibration/aiconfigurator (MANIFEST.csv and one folder per GPU)");
  }
  KernelTables out;
  for (const auto& e : kGpus) {
    if (e.folder == folder) out.gpu = e.gpu;
  }
  out.origin = read_origin(dir);
  const auto manifest = read_manifest(dir);
  for (const auto& f : families()) {
    for (const auto& entry : manifest) {
      // <gpu>/<family>/<framework>/<version>/<file>
      const auto parts = split(entry.file, '/');
      if (parts.size() != 5 || parts[0] != folder || parts[1] != f.folder || parts[4] != f.file) continue;
      if (out.device.empty() && entry.constants.count("device")) out.device = entry.constants.at("device");
      for (auto& t : import_family(dir, entry, f)) out.tables.push_back(std::move(t));
    }
  }
  if (out.tables.empty()) throw InputError({dir, "", 0}, "no table of GPU folder '" + folder + "' is in MANIFEST.csv");
  out.index();
  return out;
}

}  // namespace k3::cost
