#include "sim/serve/two_batch_overlap.hpp"

#include <algorithm>
#include <functional>

#include "core/error.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/exec/pass_executor.hpp"

namespace k3::serve {

namespace {

using core::SimTime;

// Each collective after the one before it on the one communication stream, lasting its stage's time.
class CommunicationStream final : public exec::CollectiveLauncher {
 public:
  CommunicationStream(engine::Simulator& sim, const workload::PassProgram& program, std::vector<SimTime> durations)
      : sim_(sim), program_(program), durations_(std::move(durations)) {}

  void launch(const workload::CollectiveCall& call, std::function<void()> on_done) override {
    const auto index = static_cast<std::size_t>(&call - program_.collectives.data());
    K3SIM_ASSERT(index < durations_.size(), "a collective launched from outside the iteration's program");
    free_at_ = std::max(free_at_, sim_.now()) + durations_[index];
    sim_.schedule_at(free_at_, [done = std::move(on_done)] { done(); });
  }

 private:
  engine::Simulator& sim_;
  const workload::PassProgram& program_;
  std::vector<SimTime> durations_;
  SimTime free_at_ = SimTime::zero();
};

}  // namespace

core::Seconds iteration_on_streams(const std::vector<IterationStage>& stages, int micro_batches,
                                   double comm_sm_slowdown) {
  K3SIM_ASSERT(micro_batches == 1 || micro_batches == 2, "an iteration runs as one or two micro-batches");
  workload::PassProgram program;
  program.gpus = {0};
  std::vector<SimTime> durations;
  for (int micro_batch = 0; micro_batch < micro_batches; ++micro_batch) {
    workload::PassThread thread;
    auto issue = [&](SimTime t) {
      workload::CollectiveCall call;
      call.label = "micro-batch communication";
      const int c = program.add_collective(std::move(call), {micro_batch});
      durations.push_back(t);
      thread.steps.emplace_back(workload::IssueStep{c});
      return c;
    };
    for (std::size_t i = 0; i < stages.size(); ++i) {
      const auto& stage = stages[i];
      if (!stage.communication) {
        // A compute stage that a communication in pieces follows is issued piece by piece with it.
        const bool split = i + 1 < stages.size() && stages[i + 1].communication && stages[i + 1].pieces > 1;
        if (!split) thread.steps.emplace_back(workload::ComputeStep{SimTime::from_seconds(stage.seconds), "compute"});
        continue;
      }
      const int pieces = std::max(1, stage.pieces);
      if (pieces == 1) {
        const int c = issue(SimTime::from_seconds(stage.seconds));
        if (i + 1 < stages.size() && stages[i + 1].beside_communication) {
          thread.steps.emplace_back(workload::ComputeStep{SimTime::from_seconds(stages[++i].seconds), "compute"});
        }
        thread.steps.emplace_back(workload::WaitStep{c});
        continue;
      }
      K3SIM_ASSERT(i > 0 && !stages[i - 1].communication, "a communication in pieces follows a compute stage");
      const SimTime compute = SimTime::from_seconds(stages[i - 1].seconds / pieces);
      const SimTime piece = SimTime::from_seconds(stage.seconds / pieces);
      std::vector<int> sent;
      for (int p = 0; p < pieces; ++p) {
        thread.steps.emplace_back(workload::ComputeStep{compute, "compute"});
        sent.push_back(issue(piece));
      }
      for (int c : sent) thread.steps.emplace_back(workload::WaitStep{c});
    }
    program.threads.push_back(std::move(thread));
  }
  engine::Simulator sim;
  CommunicationStream stream(sim, program, std::move(durations));
  return exec::execute_pass(program, sim, stream, comm_sm_slowdown).duration.seconds();
}

}  // namespace k3::serve
