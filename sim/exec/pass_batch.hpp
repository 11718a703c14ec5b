#pragma once
// The passes of one run, simulated in two rounds so that several runs can put theirs on the same threads:
// try_run(i), on any thread and in any order, simulates pass i or, where another run sharing the replay memo
// is replaying the same pass right now, leaves it; finish() simulates what was left, waiting for those. A
// search that rechecks ten layouts (plan's flow recheck) tries the passes of all ten on all its cores, so that
// no core idles on a layout whose last pass another core is replaying.
#include <cstddef>
#include <optional>
#include <vector>

#include "sim/exec/pass_runner.hpp"

namespace k3::exec {

class PassBatch {
 public:
  // `runner` must outlive the batch.
  PassBatch(const PassRunner& runner, std::vector<workload::PassProgram> programs);

  std::size_t size() const { return programs_.size(); }
  const workload::PassProgram& program(std::size_t i) const { return programs_[i]; }
  // Replayed flow by flow (its collectives overlap, on a network that replays them): the long passes, worth
  // starting first.
  bool replays_flows(std::size_t i) const;
  // Each i at most once; different i may run at once.
  void try_run(std::size_t i);
  // Every pass's outcome and link-class bytes, in the programs' order: those try_run left (or was not asked
  // for) simulated on `threads` workers first.
  std::vector<ReplayRecord> finish(int threads);

 private:
  const PassRunner& runner_;
  std::vector<workload::PassProgram> programs_;
  std::vector<ReplayRecord> records_;
  std::vector<char> done_;
  std::vector<std::optional<ReplayMemo::Key>> keys_;  // kept from the first try: a pass is fingerprinted once
};

}  // namespace k3::exec
