#pragma once
// The work of one pipeline pass (F, B, W or an overlapped F&B) on the GPUs of one expert-parallel group,
// as per-thread step lists that the event engine replays. A thread is one stream of work on one GPU; the
// DualPipe F&B pass gives each GPU two threads (the forward of one micro-batch and the backward of
// another) sharing that GPU's compute stream, so one's all-to-all hides behind the other's compute.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/units.hpp"
#include "sim/parallel/rank_mapping.hpp"

namespace k3::workload {

enum class CollectiveKind : std::uint8_t {
  dispatch,       // expert all-to-all, tokens to experts (forward) or gradients back (backward)
  combine,        // expert all-to-all, expert outputs back to their tokens
  allreduce,
  reducescatter,
  allgather,
  alltoall,       // uniform all-to-all (Ulysses context parallelism's head/sequence swap)
};
std::string to_string(CollectiveKind k);

// Bytes that GPU i (row) sends GPU j (column), over the members of a collective in order, and for the
// hierarchical (DeepEP) algorithm the bytes each member sends over its NIC to each node after deduplicating
// tokens bound for several GPUs of that node.
struct TrafficMatrix {
  int n = 0;
  std::vector<double> bytes;       // n x n, row-major
  int nodes = 0;
  std::vector<double> node_bytes;  // n x nodes, row-major (nodes numbered by first appearance)
  double at(int i, int j) const { return bytes[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) +
                                               static_cast<std::size_t>(j)]; }
};

struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::allreduce;
  std::vector<parallel::GpuIndex> gpus;                   // members, in rank order
  core::Bytes bytes_per_rank = 0;               // ring collectives: the buffer size per rank
  std::shared_ptr<const TrafficMatrix> matrix;  // all-to-all: who sends whom how much
  std::string label;                            // "dispatch L12" (for traces)
  // Several independent groups at once (the TP groups of a block, its EP groups): 0 means the members form
  // one group; otherwise group_size members group_stride apart (parallel::GroupShape), each group running
  // the collective on its own and the call completing when all have.
  int group_size = 0;
  int group_stride = 1;
  // Copies of this collective the stage runs per pass of a block, where the pass holds one copy of a collective
  // that spans blocks (FSDP's DP groups: the stage has TP of them and more blocks than that): the step counts the
  // bytes of the copies it does not simulate (PassRunner). 1 for a collective inside the block.
  double copies_per_block = 1;
  // Bytes each member copies from host memory before the collective and to host memory after it (FSDP's offloaded
  // shards): net::CollectiveSpec::host_in_bytes and host_out_bytes.
  core::Bytes host_in_bytes = 0;
  core::Bytes host_out_bytes = 0;
};

// What one step of a thread does. Op categories name where compute time goes in the breakdown.
struct ComputeStep {
  core::SimTime duration;
  // "attention", "expert GEMM", "dense GEMM", "router", "norm & activation", ...: a literal (OpCostModel's
  // categories), not a copy per step; a pass has hundreds of thousands of steps.
  std::string_view category;
  bool measured = false;  // priced from measured kernel latencies, not the roofline (OpTime::measured)
  // Host (CPU) time to issue it: launches and the framework work between them. The host runs ahead of the GPU,
  // so this costs GPU time only where the host falls behind; zero: the host is never the bottleneck.
  core::SimTime host = core::SimTime::zero();
};
struct IssueStep {   // start taking part in a collective, without waiting for it
  int collective = 0;
  core::SimTime host = core::SimTime::zero();  // host time to issue it (as ComputeStep::host)
  // The host then waits until every member has issued it: the collective needs counts only the device knows
  // (DeepEP normal mode's notify of received tokens, the token counts an NCCL all-to-all splits by), so the
  // host can issue nothing after it until all members have got there.
  bool host_sync = false;
};
struct WaitStep {    // block until the collective has completed
  int collective = 0;
  // The host waits too (a device-to-host sync: dropless tokens per expert, DeepEP's received counts), so it issues
  // nothing after this until the GPU has got here and the collective has completed.
  bool host_sync = false;
};
using Step = std::variant<ComputeStep, IssueStep, WaitStep>;

struct PassThread {
  int gpu_slot = 0;  // which GPU of the group runs it (index into PassProgram::gpus)
  std::vector<Step> steps;
};

struct PassProgram {
  std::vector<parallel::GpuIndex> gpus;             // the GPUs taking part
  std::vector<PassThread> threads;
  std::vector<CollectiveCall> collectives;
  // Each collective lists which threads take part: it starts when all of them have issued it.
  std::vector<std::vector<int>> participants;

  // Appends a collective and returns its index.
  int add_collective(CollectiveCall call, std::vector<int> threads_taking_part);
};

}  // namespace k3::workload
