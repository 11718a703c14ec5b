#include "sim/cost/host_profile.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/json_reader.hpp"
#include "core/text_file.hpp"

namespace k3::cost {

namespace {

constexpr std::array<char, kHostPhaseCount> kPhaseLetter = {'F', 'B', 'W'};

}  // namespace

std::string_view to_string(HostModule m) {
  switch (m) {
    case HostModule::attention: return "attn";
    case HostModule::mlp: return "mlp";
    case HostModule::dispatch: return "dispatch";
    case HostModule::combine: return "combine";
  }
  return "?";
}

std::string_view scenario_name(HostModule m) {
  return m == HostModule::attention ? std::string_view("attention") : to_string(m);
}

HostProfile HostProfile::from_json(const nlohmann::json& j, const std::string& file) {
  HostProfile p;
  const core::JsonReader top(file, j, "");
  if (top.str("kind") != "host_trace_profile") {
    top.fail("kind", "not a host profile", "host_trace_profile (what `k3sim trace import --out` writes)");
  }
  p.source_ = top.str("source");
  const auto& modules = top.at("modules");
  if (!modules.is_array()) top.fail("modules", "expected an array");
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const core::JsonReader r(file, modules[i], fmt::format("modules[{}]", i));
    const std::string name = r.str("name");
    for (std::size_t m = 0; m < kHostModuleCount; ++m) {
      for (std::size_t ph = 0; ph < kHostPhaseCount; ++ph) {
        if (name != fmt::format("{}({})", to_string(static_cast<HostModule>(m)), kPhaseLetter[ph])) continue;
        const double occurrences = r.positive("occurrences");
        const double launches = r.non_negative("launches");
        const double busy_span = r.non_negative("span_us") - r.non_negative("device_wait_us") - r.non_negative("sync_api_us");
        if (busy_span < 0) r.fail("span_us", "shorter than the module's waits on the device", "span_us >= device_wait_us + sync_api_us");
        HostModuleCost& c = p.costs_[m][ph];
        c.kernels = launches / occurrences;
        c.host = core::SimTime::from_seconds(busy_span / occurrences * 1e-6);
        c.graph_launch = launches > 0 ? core::SimTime::from_seconds(r.non_negative("launch_api_us") / launches * 1e-6)
                                      : core::SimTime::zero();
        c.measured = true;
      }
    }
  }
  for (std::size_t m = 0; m < kHostModuleCount; ++m) {
    for (std::size_t ph = 0; ph < 2; ++ph) {  // F and B; W is optional
      if (p.costs_[m][ph].measured) continue;
      top.fail("modules", fmt::format("no module {}({})", to_string(static_cast<HostModule>(m)), kPhaseLetter[ph]),
               "annotated scopes attn, mlp, dispatch and combine, each with (F) and (B), and optionally (W)");
    }
  }
  return p;
}

HostProfile HostProfile::load(const std::string& path) {
  return from_json(core::read_json_file(path, "a host profile from `k3sim trace import --out`"), path);
}

std::string describe(const HostProfile& profile, const std::array<bool, kHostModuleCount>& cuda_graphs) {
  std::string modules, graphs;
  for (std::size_t m = 0; m < kHostModuleCount; ++m) {
    const auto module = static_cast<HostModule>(m);
    std::string phases;
    for (std::size_t ph = 0; ph < kHostPhaseCount; ++ph) {
      const auto& c = profile.cost(module, static_cast<HostPhase>(ph));
      if (!c.measured) continue;
      phases += fmt::format("{}{} {:.0f} kernels {:.0f} us", phases.empty() ? "" : ", ", kPhaseLetter[ph], c.kernels,
                            c.host.seconds() * 1e6);
    }
    modules += fmt::format("{}{} ({})", modules.empty() ? "" : "; ", to_string(module), phases);
    if (cuda_graphs[m]) graphs += (graphs.empty() ? "" : ", ") + std::string(scenario_name(module));
  }
  return fmt::format("host (CPU) time per occurrence of each module, measured from {}: {}; the host runs ahead of "
                     "the GPU and costs time only where it falls behind or syncs (the forward dispatch waits for all "
                     "members unless DeepEP low-latency); CUDA graphs: {}",
                     profile.source(), modules,
                     graphs.empty() ? std::string("none") : graphs + " (one launch call each instead)");
}

std::shared_ptr<const HostProfile> HostProfile::shared(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const HostProfile>> loaded;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = loaded[path];
  if (!slot) slot = std::make_shared<const HostProfile>(load(path));
  return slot;
}

std::string shipped_host_profile(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name.find('.') != std::string::npos) return "";
  const std::string path = std::string(K3SIM_HOST_PROFILE_DIR) + "/" + name + ".json";
  return core::path_exists(path) ? path : "";
}

std::string shipped_host_profile_names() {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(K3SIM_HOST_PROFILE_DIR, ec)) {
    if (e.path().extension() == ".json") names.insert(e.path().stem().string());
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace k3::cost
