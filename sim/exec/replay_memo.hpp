#pragma once
// Passes replayed flow by flow, by what they depend on (the network model and the pass's fingerprint,
// replay_fingerprint.hpp), shared by the runs of one plan search or one uncertainty band: the candidates a
// plan rechecks on the flow network run many of the same passes (the same stages under ZeRO-1 and ZeRO-2, or
// under DualPipe on PP 8 and DualPipeV on PP 4), and a K3 F&B pass takes seconds to replay.
//
// Thread-safe. The first thread to ask for a pass replays it; another thread asking meanwhile either waits
// for it or, with `wait` false, is told it is in flight and comes back later, so that two runs sharing
// passes split them between their threads instead of one idling. Every record is the same whichever thread
// replayed it (the replay is deterministic), so results do not depend on the order or the thread count.
#include <array>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "sim/exec/pass_executor.hpp"
#include "sim/exec/replay_fingerprint.hpp"
#include "sim/net/network_registry.hpp"
#include "topologies/topology.hpp"

namespace k3::exec {

// Bytes carried per topology link class, and over the GPUs' host ports (net::host_port: offloaded shards), which
// belong to no class.
struct LinkClassBytes {
  std::array<double, topo::kLinkClassCount> bytes{};
  double host = 0;
  void add(const LinkClassBytes& other, double scale = 1) {
    for (std::size_t c = 0; c < bytes.size(); ++c) bytes[c] += other.bytes[c] * scale;
    host += other.host * scale;
  }
};

struct ReplayRecord {
  PassOutcome outcome;
  LinkClassBytes bytes;  // what each link class carried
};

class ReplayMemo {
 public:
  struct Key {
    const net::NetworkModelEntry* network;
    ReplayFingerprint pass;
    auto operator<=>(const Key&) const = default;
  };
  // The record of `key`, replayed now by `replay` when no thread has started it; nullopt when `wait` is false
  // and another thread is replaying it. Rethrows what the replay threw.
  std::optional<ReplayRecord> get(const Key& key, bool wait, const std::function<ReplayRecord()>& replay);
  // Records found already replayed or in flight, and records replayed (for tests and benchmarks).
  std::size_t reused() const;
  std::size_t replayed() const;

 private:
  using Shared = std::shared_future<std::shared_ptr<const ReplayRecord>>;
  mutable std::mutex mutex_;
  std::map<Key, Shared> records_;
  std::size_t reused_ = 0;
};

}  // namespace k3::exec
