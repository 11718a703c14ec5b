#pragma once
// Runs PassPrograms on the cluster's network: each pass in a fresh simulator (passes of different stages
// use disjoint GPUs and are combined by the pipeline executor), collectives expanded by the network
// library's CollectiveEngine. Keeps the bytes each link class carried, for utilisation.
#include <algorithm>
#include <array>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "sim/net/collectives/collective_spec.hpp"
#include "sim/net/network_factory.hpp"
#include "sim/exec/pass_executor.hpp"
#include "sim/exec/replay_memo.hpp"
#include "topologies/topology.hpp"

namespace k3::exec {

class SoloCollectiveMemo;

struct PassRunnerConfig {
  const net::NetworkModelEntry* network = &net::default_network_model();  // never null
  net::LinkEfficiency efficiency;
  net::CollectiveAlgorithm alltoall = net::CollectiveAlgorithm::flat;   // or deepep
  net::CollectiveAlgorithm allreduce = net::CollectiveAlgorithm::ring;  // TP and DP reductions
  double comm_sm_slowdown = 1.0;  // compute slowdown while a communication kernel holds SMs (execute_pass)
  int deepep_pipeline_chunks = 4;  // DeepEP all-to-alls: NIC copies sent in this many chunks (CollectiveSpec)
  // Collectives already simulated alone, shared by the runs of one uncertainty band or one plan search
  // (entries are keyed by all the collective depends on, so runs that differ do not read each other's);
  // null: the runner keeps its own.
  std::shared_ptr<SoloCollectiveMemo> solo_memo;
  // Passes replayed flow by flow, shared the same way; null: every such pass is replayed.
  std::shared_ptr<ReplayMemo> replays;
  // Full-fabric all-to-alls (the scenario's network_scope): each EP all-to-all runs beside the same collective
  // of every other block of `fabric_block_gpus` consecutive GPUs of the job's `fabric_job_gpus`, so that the
  // other groups' flows contend on the links they share. 0: the block alone (the symmetry shortcut).
  int fabric_block_gpus = 0;
  std::int64_t fabric_job_gpus = 0;
};

// `specs` (collectives of GPUs inside one block of `block_gpus` consecutive GPUs) and the same collectives
// shifted onto every other block of the job: the whole fabric's copies of them, the original first.
std::vector<net::CollectiveSpec> over_fabric(const std::vector<net::CollectiveSpec>& specs, int block_gpus,
                                             std::int64_t job_gpus);

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
  // What a collective alone depends on besides its GPUs: the network model and link figures (efficiencies,
  // then latency scales), the full-fabric blocks, the algorithms, the kind, how the members split into
  // groups, the traffic matrix and the bytes.
  struct Head {
    const net::NetworkModelEntry* network;
    std::array<double, 2 * topo::kLinkClassCount + 1> link_figures;  // + the SM copy port's share
    bool full_fabric;
    int fabric_block_gpus;            // full fabric: the block each copy fills, and the job
    std::int64_t fabric_job_gpus;
    int alltoall;                     // PassRunnerConfig's algorithms and DeepEP chunks
    int allreduce;
    int deepep_pipeline_chunks;
    int kind;
    int group_size;
    int group_stride;
    const workload::TrafficMatrix* matrix;
    double bytes;
    double host_in_bytes;
    double host_out_bytes;
    auto operator<=>(const Head&) const = default;
  };
  // Looked up by head and a view of the GPUs, so that a hit allocates nothing.
  const SoloRun* find(const Head& head, std::span<const parallel::GpuIndex> gpus) const;
  const SoloRun& insert(const Head& head, std::span<const parallel::GpuIndex> gpus, const SoloRun& run);  // first wins
  // By what the simulation sees (the network model, the fingerprint of the collectives run together, and the
  // number of blocks their bytes are shared by): the same collective on other GPUs of a symmetric fabric.
  struct Print {
    const net::NetworkModelEntry* network;
    ReplayFingerprint collectives;
    std::int64_t blocks;
    auto operator<=>(const Print&) const = default;
  };
  const SoloRun* find(const Print& print) const;
  void insert(const Print& print, const SoloRun& run);  // first wins

 private:
  struct GpusLess {
    using is_transparent = void;
    bool operator()(std::span<const parallel::GpuIndex> a, std::span<const parallel::GpuIndex> b) const {
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    }
  };
  mutable std::mutex mutex_;
  std::map<Head, std::map<std::vector<parallel::GpuIndex>, SoloRun, GpusLess>> runs_;
  std::map<Print, SoloRun> by_print_;
};

class PassRunner {
 public:
  PassRunner(const topo::Topology& topology, PassRunnerConfig config);

  // Simulates the pass; `link_bytes` (optional) receives what each link class carried; `record_ops` fills
  // PassOutcome::ops for the per-op trace.
  PassOutcome run(const workload::PassProgram& program, LinkClassBytes* link_bytes = nullptr,
                  bool record_ops = false) const;
  // One collective alone on an idle network (pipeline transfers, DP reductions).
  core::Seconds collective_time(const net::CollectiveSpec& spec, LinkClassBytes* link_bytes = nullptr) const;
  // Several collectives started together, contending; returns when the last completes. `network`: another
  // registered model than the runner's (the symmetry check runs on the analytical one).
  core::Seconds concurrent_time(const std::vector<net::CollectiveSpec>& specs, LinkClassBytes* link_bytes = nullptr,
                                const net::NetworkModelEntry* network = nullptr) const;
  // From now on, all-to-alls run in full-fabric mode (PassRunnerConfig::fabric_block_gpus).
  void use_full_fabric(int block_gpus, std::int64_t job_gpus);

  const PassRunnerConfig& config() const { return config_; }
  const topo::Topology& topology() const { return topology_; }
  // The topology's links at the runner's efficiencies (what every network it builds runs on).
  const net::NetLinks& links() const { return links_; }
  // Whether the pass is replayed flow by flow: its GPUs run collectives side by side (more than one thread on
  // a GPU, or a thread that issues a collective before waiting for the last), on a network that replays them.
  // Otherwise each collective is timed alone.
  bool replays_flow_by_flow(const workload::PassProgram& program) const;
  // One spec per independent group of the call (one for a call of one group).
  std::vector<net::CollectiveSpec> specs_of(const workload::CollectiveCall& call) const;

 private:
  const SoloRun& solo(const workload::CollectiveCall& call) const;
  // Runs the pass or shares it from the replay memo; with `wait` false, nullopt where another run is replaying
  // it. `key` (optional): the pass's replay memo key, computed here when empty and kept there, so that a pass
  // found in flight is not fingerprinted again when it is waited for.
  std::optional<PassOutcome> run_or_share(const workload::PassProgram& program, LinkClassBytes* link_bytes,
                                          bool record_ops, bool wait,
                                          std::optional<ReplayMemo::Key>* key = nullptr) const;
  ReplayRecord replay(const workload::PassProgram& program, bool record_ops) const;
  // Adds the bytes of the copies of the program's collectives that it holds one of (CollectiveCall::copies_per_block).
  void add_unsimulated_copies(const workload::PassProgram& program, LinkClassBytes& bytes) const;
  bool overlaps_collectives(const workload::PassProgram& program) const;
  friend class PassBatch;  // tries a pass without waiting, then waits

  const topo::Topology& topology_;
  PassRunnerConfig config_;  // solo_memo never null after construction
  bool shared_solo_memo_ = false;  // the config came with a solo memo (shared with other runs)
  net::NetLinks links_;      // the topology's links at config_.efficiency, shared by every network the runner builds
};

}  // namespace k3::exec
