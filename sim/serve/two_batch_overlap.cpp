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

core::Seconds two_batch_iteration(const std::vector<IterationStage>& stages, double comm_sm_slowdown) {
  workload::PassProgram program;
  program.gpus = {0};
  std::vector<SimTime> durations;
  for (int micro_batch = 0; micro_batch < 2; ++micro_batch) {
    workload::PassThread thread;
    for (const auto& stage : stages) {
      const SimTime t = SimTime::from_seconds(stage.seconds);
      if (!stage.communication) {
        thread.steps.emplace_back(workload::ComputeStep{t, "compute"});
        continue;
      }
      workload::CollectiveCall call;
      call.label = "micro-batch communication";
      const int c = program.add_collective(std::move(call), {micro_batch});
      durations.push_back(t);
      thread.steps.emplace_back(workload::IssueStep{c});
      thread.steps.emplace_back(workload::WaitStep{c});
    }
    program.threads.push_back(std::move(thread));
  }
  engine::Simulator sim;
  CommunicationStream stream(sim, program, std::move(durations));
  return exec::execute_pass(program, sim, stream, comm_sm_slowdown).duration.seconds();
}

}  // namespace k3::serve
