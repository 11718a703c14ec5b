#pragma once
// Host (CPU) time per occurrence of each module of a layer, as the simulator charges it: read from what
// `k3sim trace import --out` writes (host_trace.hpp), so the numbers are measurements of one framework on one
// machine, never fitted to a step time. A module is one of the four scopes DeepSeek-V3's DualPipe annotates
// its chunks with (attn, mlp, dispatch, combine) in one of the three passes (F forward, B input gradients,
// W weight gradients): the profile's module "attn(F)" is the attention module's forward.
#include <nlohmann/json.hpp>

#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "core/units.hpp"

namespace k3::cost {

enum class HostModule { attention, mlp, dispatch, combine };
enum class HostPhase { forward, backward_input, weight };
inline constexpr std::size_t kHostModuleCount = 4;
inline constexpr std::size_t kHostPhaseCount = 3;

std::string_view to_string(HostModule m);   // the trace's scope name: attn, mlp, dispatch, combine
std::string_view scenario_name(HostModule m);  // the scenario's word: attention, mlp, dispatch, combine

struct HostModuleCost {
  double kernels = 0;          // launches per occurrence
  core::SimTime host;          // host time per occurrence issuing them: launches and framework work
  core::SimTime graph_launch;  // one launch call (what replaying the module as one captured CUDA graph costs)
  bool measured = false;       // the profile has this module in this phase
};

class HostProfile {
 public:
  // The JSON of `k3sim trace import --out`; `file` names it in errors. Every scope needs its F and B
  // modules; W is optional (a trace whose backward does not split it off has the weight gradients in B).
  static HostProfile from_json(const nlohmann::json& j, const std::string& file);
  static HostProfile load(const std::string& path);
  // load() once per file: a plan or a band reads its scenario thousands of times.
  static std::shared_ptr<const HostProfile> shared(const std::string& path);

  const HostModuleCost& cost(HostModule m, HostPhase p) const {
    return costs_[static_cast<std::size_t>(m)][static_cast<std::size_t>(p)];
  }
  // Host time of one occurrence of `m` in `p`; `captured`: replayed as one CUDA graph (one launch, no framework
  // work: the Python that built the graph does not run again).
  core::SimTime per_occurrence(HostModule m, HostPhase p, bool captured) const {
    const auto& c = cost(m, p);
    return captured ? c.graph_launch : c.host;
  }
  const std::string& source() const { return source_; }  // the trace it was imported from

 private:
  std::string source_;
  std::array<std::array<HostModuleCost, kHostPhaseCount>, kHostModuleCount> costs_{};
};

// One line for a result's assumptions: where the profile was measured, the host time of a layer's modules
// in each pass, and which modules run as CUDA graphs.
std::string describe(const HostProfile& profile, const std::array<bool, kHostModuleCount>& cuda_graphs);

// The shipped profile of that name (kernels/profiles/host/<name>.json), "" when there is none.
std::string shipped_host_profile(const std::string& name);
// The names of the shipped profiles, for errors.
std::string shipped_host_profile_names();

}  // namespace k3::cost
