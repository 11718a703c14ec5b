#include "sim/train/op_trace.hpp"

#include <fmt/format.h>

#include <array>
#include <set>

#include "sim/net/network_factory.hpp"

namespace k3::train {

namespace {

std::string label_of(const parallel::Pass& p) {
  if (p.kind == parallel::PassKind::forward_backward) {
    return fmt::format("F{}/B{} mb{}/{}", p.work.chunk, p.backward.chunk, p.work.microbatch, p.backward.microbatch);
  }
  return fmt::format("{}{} mb{}", to_string(p.kind), p.work.chunk, p.work.microbatch);
}

// Which micro-batch a thread of the pass works on, in words.
std::string micro_batch_of(const parallel::Pass& p, int thread, int forward_threads) {
  if (p.kind == parallel::PassKind::forward_backward) {
    return thread < forward_threads ? fmt::format("mb {} forward", p.work.microbatch)
                                    : fmt::format("mb {} backward", p.backward.microbatch);
  }
  return fmt::format("mb {} {}", p.work.microbatch, to_string(p.kind));
}

OpTracePass trace_pass(int rank, const parallel::PassTiming& at, const TracedProgram& traced,
                       const exec::PassRunner& runner, const topo::Topology& topology) {
  exec::LinkClassBytes bytes;
  const auto outcome = runner.run(traced.program, &bytes, true);
  OpTracePass out;
  out.kind = to_string(at.pass.kind);
  out.label = label_of(at.pass);
  out.pipeline_rank = rank;
  out.start_s = at.start.seconds();
  out.end_s = at.start.seconds() + outcome.duration.seconds();
  for (const auto g : traced.program.gpus) out.gpus.push_back(static_cast<int>(g));
  for (const auto& op : outcome.ops) {
    OpTraceSlice s;
    s.gpu = out.gpus[static_cast<std::size_t>(op.gpu_slot)];
    s.stream = op.collective < 0 ? "compute" : op.kind;
    s.name = op.collective < 0 ? op.kind : op.label;
    s.micro_batch = micro_batch_of(at.pass, op.thread, traced.forward_threads);
    s.start_s = out.start_s + op.start.seconds();
    s.end_s = out.start_s + op.end.seconds();
    s.collective = op.collective;
    out.slices.push_back(std::move(s));
  }
  // The group's share of each class's links: every link of the class, scaled by the share of the GPUs the
  // pass's collectives span (a pass without overlap simulates one GPU's thread against the whole group).
  std::set<parallel::GpuIndex> group(traced.program.gpus.begin(), traced.program.gpus.end());
  for (const auto& c : traced.program.collectives) group.insert(c.gpus.begin(), c.gpus.end());
  std::array<double, topo::kLinkClassCount> capacity{};
  for (const auto& l : topology.links()) capacity[static_cast<std::size_t>(l.link_class)] += l.capacity_bytes_per_s;
  const double share = static_cast<double>(group.size()) / static_cast<double>(topology.gpu_count());
  const double seconds = outcome.duration.seconds();
  for (std::size_t c = 0; c < capacity.size(); ++c) {
    if (capacity[c] <= 0 || seconds <= 0) continue;
    out.link_utilisation[std::string(topo::to_string(static_cast<topo::LinkClass>(c)))] =
        bytes.bytes[c] / (capacity[c] * share * seconds);
  }
  const double host_capacity = net::host_ports_bytes_per_s(topology);
  if (bytes.host > 0 && host_capacity > 0 && seconds > 0)
    out.link_utilisation["host"] = bytes.host / (host_capacity * share * seconds);
  return out;
}

}  // namespace

std::vector<OpTracePass> trace_ops(const parallel::PipelineTimeline& timeline, const exec::PassRunner& runner,
                                   const topo::Topology& topology,
                                   const std::function<TracedProgram(int rank, const parallel::Pass& pass)>& program_of) {
  std::vector<OpTracePass> out;
  std::set<parallel::PassKind> seen;
  // The middle pipeline rank first: under DualPipe both of its chunks hold MoE layers, so its F&B pass shows
  // one micro-batch's all-to-all beside the other's compute (rank 0's forward chunk is the dense first stage).
  const std::size_t ranks = timeline.per_rank.size();
  std::vector<std::size_t> order{ranks / 2};
  for (std::size_t r = 0; r < ranks; ++r)
    if (r != ranks / 2) order.push_back(r);
  for (const std::size_t r : order) {
    for (const auto& pt : timeline.per_rank[r]) {
      if (!seen.insert(pt.pass.kind).second) continue;
      const int rank = static_cast<int>(r);
      out.push_back(trace_pass(rank, pt, program_of(rank, pt.pass), runner, topology));
    }
  }
  return out;
}

}  // namespace k3::train
