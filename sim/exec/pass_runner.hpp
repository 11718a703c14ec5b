#pragma once
// Runs PassPrograms on the cluster's network: each pass in a fresh simulator (passes of different stages
// use disjoint GPUs and are combined by the pipeline executor), collectives expanded by the network
// library's CollectiveEngine. Keeps the bytes each link class carried, for utilisation.
#include <array>
#include <memory>
#include <map>
#include <mutex>
#include <vector>

#include "sim/net/collectives/collective_spec.hpp"
#include "sim/net/network_factory.hpp"
#include "sim/exec/pass_executor.hpp"
#include "topologies/topology.hpp"

namespace k3::exec {

class SoloCollectiveMemo;

struct PassRunnerConfig {
  const net::NetworkModelEntry* network = &net::default_network_model();  // never null
  net::LinkEfficiency efficiency;
  net::CollectiveAlgorithm alltoall = net::CollectiveAlgorithm::flat;   // or deepep
  net::CollectiveAlgorithm allreduce = net::CollectiveAlgorithm::ring;  // TP and DP reductions
  double compute_slowdown = 1.0;
  int deepep_pipeline_chunks = 4;  // DeepEP all-to-alls: NIC copies sent in this many chunks (CollectiveSpec)
  // Collectives already simulated alone, shared by the runs of one uncertainty band (entries are keyed by
  // the link figures, so runs that move them do not read each other's); null: the runner keeps its own.
  std::shared_ptr<SoloCollectiveMemo> solo_memo;
};

struct LinkClassBytes {
  std::array<double, topo::kLinkClassCount> bytes{};
};

// Passes whose collectives never overlap (one thread per GPU: each collective is waited for before the
// next is issued), and every pass on the contention-free analytical network, see each collective run
// alone on an idle network; its duration then depends only on the collective itself and is computed
// once per distinct collective and reused. Passes that overlap collectives (DualPipe's F&B) are
// simulated flow by flow.
// A collective alone on an idle network: its duration and what it moved.
struct SoloRun {
  core::SimTime duration;
  LinkClassBytes bytes;
};

// Collective -> SoloRun, for one or several runners; thread-safe, and references stay valid (std::map).
class SoloCollectiveMemo {
 public:
  struct Key {
    const net::NetworkModelEntry* network;
    std::array<double, 2 * topo::kLinkClassCount> link_figures;  // efficiencies, then latency scales
    int kind;
    const workload::TrafficMatrix* matrix;
    double bytes;
    std::vector<parallel::GpuIndex> gpus;
    auto operator<=>(const Key&) const = default;
  };
  const SoloRun* find(const Key& key) const;
  const SoloRun& insert(Key key, const SoloRun& run);  // the first insert of a key wins

 private:
  mutable std::mutex mutex_;
  std::map<Key, SoloRun> runs_;
};

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
  const SoloRun& solo(const workload::CollectiveCall& call) const;
  bool overlaps_collectives(const workload::PassProgram& program) const;

  const topo::Topology& topology_;
  PassRunnerConfig config_;  // solo_memo never null after construction
};

}  // namespace k3::exec
