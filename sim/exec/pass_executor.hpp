#pragma once
// Replays a PassProgram on the event engine: per GPU one compute stream (FIFO over the GPU's threads) whose
// speed depends on the communication kernels holding SMs beside it, collectives started on the network when
// every participant has issued them, threads blocked on them until they complete. Reports how long the pass took and, per thread, where its time went.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/engine/simulator.hpp"
#include "sim/workload/pass_program.hpp"

namespace k3::exec {

// Starts a collective on the simulated network and calls `on_done` once it has completed for all members.
class CollectiveLauncher {
 public:
  virtual ~CollectiveLauncher() = default;
  virtual void launch(const workload::CollectiveCall& call, std::function<void()> on_done) = 0;
};

struct ThreadAccount {
  core::SimTime finish;
  core::SimTime compute;                                     // time its compute steps ran
  core::SimTime stream_wait;                                 // waiting for the GPU's other thread
  core::SimTime host_wait;                                   // the GPU was ready but the host had not issued yet
  std::map<std::string, core::SimTime> compute_by_category;
  std::map<std::string, core::SimTime> measured_by_category;  // of compute_by_category, priced from measurements
  std::map<std::string, core::SimTime> exposed_comm;         // blocked on a collective, by kind
};

// One op of a pass as it ran, for the per-op trace: a compute step on its GPU's stream, or one member's part
// of a collective (from the moment the last participant issued it to its completion). Times are from the
// start of the pass.
struct OpSpan {
  int gpu_slot = 0;        // index into PassProgram::gpus
  int thread = 0;          // the pass thread (DualPipe's F&B: 0.. forward, then backward threads)
  core::SimTime start;
  core::SimTime end;
  std::string kind;        // compute: the op category; collective: "dispatch", "combine", "allreduce", ...
  std::string label;       // collective: its CollectiveCall::label; compute: ""
  int collective = -1;     // index into PassProgram::collectives, -1 for compute
};

struct PassOutcome {
  core::SimTime duration;
  int critical_thread = 0;  // the thread that finished last
  std::vector<ThreadAccount> threads;
  std::uint64_t events = 0;
  std::vector<OpSpan> ops;  // only when execute_pass was asked to record them
};

// Runs `program` from the simulator's current time until every thread is done. The simulator must have
// no other pending work. A member's communication kernel holds SMs of its GPU from the moment it issues a
// collective until the collective completes; compute on that GPU meanwhile runs `comm_sm_slowdown` times
// slower (132 / 112 when communication kernels hold 20 of 132 SMs), and at full speed otherwise.
// Each thread has a host that issues its steps in order, ComputeStep::host apart, running ahead of the GPU; a
// step starts no sooner than the host has issued it, a host_sync wait holds the host until the GPU is there, and
// a host_sync issue holds it (and so the thread) until every member has issued that collective.
// `record_ops` fills PassOutcome::ops (it costs memory on large passes: the trace asks for a few).
PassOutcome execute_pass(const workload::PassProgram& program, engine::Simulator& sim, CollectiveLauncher& launcher,
                         double comm_sm_slowdown = 1.0, bool record_ops = false);

// The longest GPU compute stream of the program: the sum of its compute steps' nominal durations on each
// GPU. No pass can take less, whatever its collectives do (a GPU runs its compute steps one after another,
// at best on all of its SMs).
core::SimTime busiest_compute_stream(const workload::PassProgram& program);

// The most host time any thread of the program spends issuing its steps. No pass can take less: a thread's last
// step starts no sooner than its host has issued every step before it and that one.
core::SimTime busiest_host(const workload::PassProgram& program);

}  // namespace k3::exec
