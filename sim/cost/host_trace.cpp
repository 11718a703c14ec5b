#include "sim/cost/host_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"

namespace k3::cost {

namespace {

struct Span {
  double begin = 0;
  double end = 0;
};

struct Annotation {
  std::string process;  // the pid as written (Kineto writes numbers, some tools strings)
  std::string name;
  Span span;
};

struct Launch {
  std::string process;
  double at = 0;
  double api_us = 0;
  long long correlation = -1;
};

struct DeviceOp {
  double end = 0;
  double dur = 0;
};

bool is_launch(std::string_view name) {
  return name == "cudaLaunchKernel" || name == "cudaLaunchKernelExC" || name == "cuLaunchKernel" ||
         name == "cuLaunchKernelEx" || name == "cudaMemsetAsync" || name == "cudaMemcpyAsync" ||
         name == "cudaGraphLaunch";
}

bool is_sync(std::string_view name) {
  return name.find("Synchronize") != std::string_view::npos || name == "cudaMemcpy";
}

bool is_host_op(std::string_view cat) { return cat == "cpu_op" || cat == "cuda_runtime" || cat == "cuda_driver"; }
bool is_device_op(std::string_view cat) { return cat == "kernel" || cat == "gpu_memset" || cat == "gpu_memcpy"; }

// Merges spans into disjoint sorted spans.
std::vector<Span> merged(std::vector<Span> spans) {
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  std::vector<Span> out;
  for (const auto& s : spans) {
    if (!out.empty() && s.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

long long correlation_of(const nlohmann::json& e) {
  const auto args = e.find("args");
  if (args == e.end() || !args->is_object()) return -1;
  const auto c = args->find("correlation");
  return c != args->end() && c->is_number_integer() ? c->get<long long>() : -1;
}

// Innermost ranges: those with no other range of their process inside them (a profiler step or a
// schedule-level range holds the modules, which are what is costed).
std::vector<Annotation> innermost(std::vector<Annotation> all) {
  std::sort(all.begin(), all.end(), [](const Annotation& a, const Annotation& b) {
    return a.span.begin != b.span.begin ? a.span.begin < b.span.begin : a.span.end > b.span.end;
  });
  std::vector<Annotation> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    bool holds_another = false;
    for (std::size_t j = i + 1; j < all.size() && all[j].span.begin < all[i].span.end; ++j) {
      if (all[j].process == all[i].process && all[j].span.end <= all[i].span.end) {
        holds_another = true;
        break;
      }
    }
    if (!holds_another) out.push_back(all[i]);
  }
  return out;
}

}  // namespace

HostTraceProfile import_host_trace(const nlohmann::json& trace, const std::string& file,
                                   const HostTraceOptions& options) {
  const nlohmann::json* events = &trace;
  if (trace.is_object()) {
    const auto it = trace.find("traceEvents");
    if (it == trace.end()) throw core::InputError({file, "traceEvents", 0}, "missing key", "a Chrome trace object with traceEvents, or the event array");
    events = &*it;
  }
  if (!events->is_array()) throw core::InputError({file, "traceEvents", 0}, "expected an array of trace events");

  std::vector<Annotation> annotations;
  std::vector<Launch> launches;
  std::map<std::string, std::vector<Span>> host_ops;                  // by process
  std::map<std::string, std::vector<Span>> sync_calls;                // synchronising CUDA calls, by process
  std::unordered_map<long long, DeviceOp> device_ops;                 // by correlation
  for (const auto& e : *events) {
    // Complete events ("X") with a start and a duration are all this reads; metadata, flows and instants pass.
    if (!e.is_object() || e.value("ph", "") != "X") continue;
    const auto ts = e.find("ts");
    const auto dur = e.find("dur");
    if (ts == e.end() || dur == e.end() || !ts->is_number() || !dur->is_number()) continue;
    const double begin = ts->get<double>();
    const double length = dur->get<double>();
    if (!std::isfinite(begin) || !std::isfinite(length) || length < 0) continue;
    const std::string cat = e.value("cat", "");
    const std::string name = e.contains("name") && e["name"].is_string() ? e["name"].get<std::string>() : "";
    const std::string process = e.contains("pid") ? e["pid"].dump() : "";
    const Span span{begin, begin + length};
    if (cat == "user_annotation") {
      annotations.push_back({process, name, span});
    } else if (is_host_op(cat)) {
      host_ops[process].push_back(span);
      if (is_launch(name)) {
        launches.push_back({process, begin, length, correlation_of(e)});
      } else if (is_sync(name)) {
        sync_calls[process].push_back(span);
      }
    } else if (is_device_op(cat)) {
      const auto c = correlation_of(e);
      if (c >= 0) device_ops[c] = DeviceOp{span.end, length};
    }
  }
  if (annotations.empty()) {
    throw core::InputError({file, "traceEvents", 0}, "no annotated ranges (cat user_annotation)",
                           "a trace recorded with record_function / NVTX ranges around the modules to cost");
  }
  if (launches.empty()) {
    throw core::InputError({file, "traceEvents", 0}, "no kernel launches (cat cuda_runtime, cudaLaunchKernel...)",
                           "a PyTorch-profiler trace with CUDA activities recorded");
  }

  HostTraceProfile out;
  out.options = options;
  out.source = file;
  if (trace.is_object() && trace.contains("traceName") && trace["traceName"].is_string()) {
    out.source += " (" + trace["traceName"].get<std::string>() + ")";
  }
  const auto modules = innermost(std::move(annotations));
  std::map<std::string, std::size_t> index;  // module name -> position in out.modules
  auto module_of = [&](const std::string& name) -> ModuleHostCost& {
    const auto [it, inserted] = index.emplace(name, out.modules.size());
    if (inserted) out.modules.push_back(ModuleHostCost{name});
    return out.modules[it->second];
  };
  for (const auto& m : modules) ++module_of(m.name).occurrences;

  // Each launch belongs to the latest-starting module range of its process that holds it.
  double longest = 0;
  for (const auto& m : modules) longest = std::max(longest, m.span.end - m.span.begin);
  for (auto& l : launches) {
    auto it = std::upper_bound(modules.begin(), modules.end(), l.at,
                               [](double t, const Annotation& a) { return t < a.span.begin; });
    const Annotation* owner = nullptr;
    while (it != modules.begin()) {
      --it;
      if (it->span.begin + longest < l.at) break;
      if (it->process == l.process && l.at < it->span.end) {
        owner = &*it;
        break;
      }
    }
    if (owner == nullptr) {
      ++out.launches_outside;
      continue;
    }
    auto& m = module_of(owner->name);
    ++m.launches;
    m.launch_api_us += l.api_us;
    if (const auto d = device_ops.find(l.correlation); d != device_ops.end()) m.gpu_us += d->second.dur;
  }

  // Each process's launches in time order, to find the one a gap follows.
  std::map<std::string, std::vector<std::pair<double, long long>>> launched;
  for (const auto& l : launches) launched[l.process].push_back({l.at, l.correlation});
  for (auto& [process, list] : launched) std::sort(list.begin(), list.end());
  const auto host_waited = [&](const std::string& process, const Span& gap) {
    if (gap.end - gap.begin <= options.resume_within_us) return false;
    const auto& list = launched[process];
    const auto it = std::lower_bound(list.begin(), list.end(), std::pair{gap.begin, std::numeric_limits<long long>::min()});
    if (it == list.begin()) return false;
    const auto op = device_ops.find(std::prev(it)->second);
    return op != device_ops.end() && std::fabs(op->second.end - gap.end) <= options.resume_within_us;
  };
  std::map<std::string, std::vector<Span>> busy;
  for (auto& [process, spans] : host_ops) busy[process] = merged(std::move(spans));
  for (const auto& m : modules) {
    auto& cost = module_of(m.name);
    cost.span_us += m.span.end - m.span.begin;
    for (const auto& span : sync_calls[m.process]) {
      if (span.begin >= m.span.begin && span.begin < m.span.end) {
        cost.sync_api_us += std::min(span.end, m.span.end) - span.begin;
      }
    }
    // Walk the process's busy spans across the range: covered time is busy, the holes between are gaps.
    const auto& spans = busy[m.process];
    double at = m.span.begin;
    auto it = std::lower_bound(spans.begin(), spans.end(), m.span.begin,
                               [](const Span& s, double t) { return s.end <= t; });
    const auto add_gap = [&](double from, double to) {
      if (to <= from) return;
      if (host_waited(m.process, {from, to})) {
        cost.device_wait_us += to - from;
      } else {
        cost.gap_us += to - from;
      }
    };
    for (; it != spans.end() && it->begin < m.span.end; ++it) {
      add_gap(at, std::max(at, it->begin));
      const double from = std::max(at, it->begin);
      const double to = std::min(m.span.end, it->end);
      if (to > from) cost.busy_us += to - from;
      at = std::max(at, to);
    }
    add_gap(at, m.span.end);
  }
  return out;
}

nlohmann::json to_json(const HostTraceProfile& profile) {
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& m : profile.modules) {
    modules.push_back({{"name", m.name},
                       {"occurrences", m.occurrences},
                       {"launches", m.launches},
                       {"kernels_per_occurrence", m.kernels_per_occurrence()},
                       {"host_us_per_launch", m.host_us_per_launch()},
                       {"span_us", m.span_us},
                       {"busy_us", m.busy_us},
                       {"launch_api_us", m.launch_api_us},
                       {"sync_api_us", m.sync_api_us},
                       {"device_wait_us", m.device_wait_us},
                       {"gap_us", m.gap_us},
                       {"gpu_us", m.gpu_us}});
  }
  return {{"kind", "host_trace_profile"},
          {"source", profile.source},
          {"resume_within_us", profile.options.resume_within_us},
          {"launches_outside_modules", profile.launches_outside},
          {"modules", modules}};
}

}  // namespace k3::cost
