#include "sim/exec/pass_batch.hpp"

#include "core/error.hpp"
#include "core/parallel_for.hpp"

namespace k3::exec {

PassBatch::PassBatch(const PassRunner& runner, std::vector<workload::PassProgram> programs)
    : runner_(runner), programs_(std::move(programs)), records_(programs_.size()), done_(programs_.size(), 0),
      keys_(programs_.size()) {}

bool PassBatch::replays_flows(std::size_t i) const {
  return runner_.replays_flow_by_flow(programs_[i]);
}

void PassBatch::try_run(std::size_t i) {
  K3SIM_ASSERT(i < programs_.size() && done_[i] == 0, "a pass of a batch tried twice");
  if (auto outcome = runner_.run_or_share(programs_[i], &records_[i].bytes, false, false, &keys_[i])) {
    records_[i].outcome = std::move(*outcome);
    done_[i] = 1;
  }
}

std::vector<ReplayRecord> PassBatch::finish(int threads) {
  core::parallel_for(programs_.size(), threads, [&](std::size_t i) {
    if (done_[i] != 0) return;
    records_[i].outcome = *runner_.run_or_share(programs_[i], &records_[i].bytes, false, true, &keys_[i]);
    done_[i] = 1;
  });
  return std::move(records_);
}

}  // namespace k3::exec
