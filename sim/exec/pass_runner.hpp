#pragma once
// Runs PassPrograms on the cluster's network: each pass in a fresh simulator (passes of different stages
// use disjoint GPUs and are combined by the pipeline executor), collectives expanded by the network
// library's CollectiveEngine. Keeps the bytes each link class carried, for utilisation.
#include <array>
#include <map>
#include <mutex>
#include <vector>

#include "sim/net/collectives/collective_spec.hpp"
#include "sim/net/network_factory.hpp"
#include "sim/exec/pass_executor.hpp"
#include "topologies/topology.hpp"

namespace k3::exec {

struct PassRunnerConfig {
  const net::NetworkModelEntry* network = &net::default_network_model();  // never null
  net::LinkEfficiency efficiency;
  net::CollectiveAlgorithm alltoall = net::CollectiveAlgorithm::flat;   // or deepep
  net::CollectiveAlgorithm allreduce = net::CollectiveAlgorithm::ring;  // TP and DP reductions
  double compute_slowdown = 1.0;
};

struct LinkClassBytes {
  std::array<double, topo::kLinkClassCount> bytes{};
};

// Passes whose collectives never overlap (one thread per GPU: each collective is waited for before the
// next is issued), and every pass on the contention-free analytical network, see each collective run
// alone on an idle network; its duration then depends only on the collective itself and is computed
// once per distinct collective and reused. Passes that overlap collectives (DualPipe's F&B) are
// simulated flow by flow.
class PassRunner {
 public:
  PassRunner(const topo::Topology& topology, PassRunnerConfig config);

  // Simulates the pass; `link_bytes` (optional) receives what each link class carried.
  PassOutcome run(const workload::PassProgram& program, LinkClassBytes* link_bytes = nullptr) const;
  // One collective alone on an idle network (pipeline transfers, DP reductions).
  core::Seconds collective_time(const net::CollectiveSpec& spec, LinkClassBytes* link_bytes = nullptr) const;
  // Several collectives started together, contending; returns when the last completes.
  core::Seconds concurrent_time(const std::vector<net::CollectiveSpec>& specs, LinkClassBytes* link_bytes = nullptr) const;

  const PassRunnerConfig& config() const { return config_; }
  net::CollectiveSpec spec_of(const workload::CollectiveCall& call) const;

 private:
  struct SoloKey {
    int kind;
    const workload::TrafficMatrix* matrix;
    double bytes;
    std::vector<parallel::GpuIndex> gpus;
    auto operator<=>(const SoloKey&) const = default;
  };
  struct SoloRun {
    core::SimTime duration;
    LinkClassBytes bytes;
  };
  const SoloRun& solo(const workload::CollectiveCall& call) const;
  bool overlaps_collectives(const workload::PassProgram& program) const;

  const topo::Topology& topology_;
  PassRunnerConfig config_;
  // Passes are simulated on several threads (see StepOptions::threads); the memo is shared by them.
  mutable std::mutex solo_mutex_;
  mutable std::map<SoloKey, SoloRun> solo_;
};

}  // namespace k3::exec
