#include "sim/exec/pipeline_graph.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/error.hpp"

namespace k3::exec {

namespace {

using core::SimTime;
using parallel::ChunkWork;
using parallel::Pass;
using parallel::PassKind;

bool runs_forward(PassKind k) { return k == PassKind::forward || k == PassKind::forward_backward; }
bool sends_backward(PassKind k) { return k == PassKind::backward || k == PassKind::backward_input; }

// Where each micro-batch's output of each stage is available to the rank that takes it next: the node after
// which it has arrived (the producing pass where it stays on its rank). Flat over (stream, stage, micro-batch):
// large pipelines run hundreds of thousands of passes.
class Outputs {
 public:
  Outputs(int streams, int stages, int microbatches)
      : stages_(stages), microbatches_(microbatches),
        at_(static_cast<std::size_t>(streams) * static_cast<std::size_t>(stages) * static_cast<std::size_t>(microbatches),
            PipelineGraph::kNone) {}
  GraphNodeId& operator()(int stream, int stage, int microbatch) {
    K3SIM_ASSERT(stage >= 0 && stage < stages_ && microbatch >= 0 && microbatch < microbatches_,
                 "a pass outside its schedule's stages or micro-batches");
    return at_[(static_cast<std::size_t>(stream) * static_cast<std::size_t>(stages_) + static_cast<std::size_t>(stage)) *
                   static_cast<std::size_t>(microbatches_) +
               static_cast<std::size_t>(microbatch)];
  }

 private:
  int stages_;
  int microbatches_;
  std::vector<GraphNodeId> at_;
};

class Builder {
 public:
  Builder(const parallel::PipelineSchedule& s, const PipelineGraphCosts& costs)
      : s_(s), costs_(costs), microbatches_(count_microbatches(s)), forward_out_(s.streams, s.stages(), microbatches_),
        backward_out_(s.streams, s.stages(), microbatches_), forward_pass_(s.streams, s.stages(), microbatches_) {
    const auto ranks = static_cast<std::size_t>(s.ranks);
    out_.passes.resize(ranks);
    out_.blocking_sends.resize(ranks);
    out_.last_compute.assign(ranks, PipelineGraph::kNone);
    out_.last_gradient.assign(ranks, std::vector<std::size_t>(static_cast<std::size_t>(s.chunks_per_rank), PipelineGraph::kNoPass));
    out_.first_forward = out_.last_gradient;
  }

  PipelineGraph build() {
    for (int r = 0; r < s_.ranks; ++r) {
      for (const Pass& pass : s_.passes[static_cast<std::size_t>(r)]) add_pass(r, pass);
    }
    // Inputs: every producer is in the graph now, whatever rank order the schedule's data flows in.
    for (int r = 0; r < s_.ranks; ++r) {
      for (const auto& p : out_.passes[static_cast<std::size_t>(r)]) {
        auto& deps = out_.graph.nodes[p.node].deps;
        if (runs_forward(p.pass.kind)) input(r, p.pass.work, true, deps);
        if (sends_backward(p.pass.kind)) input(r, p.pass.work, false, deps);
        if (p.pass.kind == PassKind::forward_backward) input(r, p.pass.backward, false, deps);
      }
    }
    return std::move(out_);
  }

 private:
  static int count_microbatches(const parallel::PipelineSchedule& s) {
    int m = 1;
    for (const auto& list : s.passes) {
      for (const auto& p : list) m = std::max({m, p.work.microbatch + 1, p.backward.microbatch + 1});
    }
    return m;
  }

  void add_pass(int r, const Pass& pass) {
    const auto ri = static_cast<std::size_t>(r);
    GraphNode node;
    node.rank = r;
    node.stream = "compute";
    const core::SimTime duration = parallel::pass_duration(costs_.passes, r, pass);
    node.duration = duration;
    node.name = pass.kind == PassKind::forward_backward
                    ? fmt::format("F&B chunks {}/{} mb {}/{}", pass.work.chunk, pass.backward.chunk, pass.work.microbatch,
                                  pass.backward.microbatch)
                    : fmt::format("{} chunk {} mb {}", parallel::to_string(pass.kind), pass.work.chunk, pass.work.microbatch);
    if (out_.last_compute[ri] != PipelineGraph::kNone) node.deps.push_back(out_.last_compute[ri]);
    const GraphNodeId id = out_.graph.add(std::move(node));
    out_.last_compute[ri] = id;
    const std::size_t index = out_.passes[ri].size();
    out_.passes[ri].push_back({pass, id, id, duration});
    auto& first = out_.first_forward[ri][static_cast<std::size_t>(pass.work.chunk)];
    if (runs_forward(pass.kind) && first == PipelineGraph::kNoPass) first = index;
    if (pass.kind != PassKind::forward && pass.kind != PassKind::backward_input) {
      const int grad_chunk = pass.kind == PassKind::forward_backward ? pass.backward.chunk : pass.work.chunk;
      out_.last_gradient[ri][static_cast<std::size_t>(grad_chunk)] = index;
    }
    if (runs_forward(pass.kind)) {
      forward_pass_(s_.stream_of(r, pass.work.chunk), s_.stage_of(r, pass.work.chunk), pass.work.microbatch) = id;
      output(r, pass.work, true, id);
    }
    if (sends_backward(pass.kind)) output(r, pass.work, false, id);
    if (pass.kind == PassKind::forward_backward) output(r, pass.backward, false, id);
  }

  // Records where the output of `w` (forward: to the next stage; backward: to the previous) becomes available,
  // adding the send that carries it off the rank.
  void output(int r, ChunkWork w, bool forward, GraphNodeId producer) {
    const int stream = s_.stream_of(r, w.chunk);
    const int stage = s_.stage_of(r, w.chunk);
    const int to_stage = forward ? stage + 1 : stage - 1;
    GraphNodeId& at = (forward ? forward_out_ : backward_out_)(stream, stage, w.microbatch);
    at = producer;
    if (to_stage < 0 || to_stage >= s_.stages()) return;
    const int to = s_.holder_of(stream, to_stage).first;
    if (to == r) return;
    const auto ri = static_cast<std::size_t>(r);
    const bool blocking = costs_.passes.blocking_p2p;
    const std::string stream_name = blocking ? "compute" : forward ? "send forward" : "send backward";
    GraphNodeId& last_send = blocking ? out_.last_compute[ri] : (forward ? last_forward_send_ : last_backward_send_)[r];
    std::vector<std::vector<net::CollectiveSpec>> phases;
    if (costs_.transfer) phases = costs_.transfer(r, to);
    if (phases.empty()) phases.emplace_back();  // one fixed-time node: passes.p2p
    for (std::size_t p = 0; p < phases.size(); ++p) {
      GraphNode send;
      send.kind = GraphNodeKind::send;
      send.rank = r;
      send.stream = stream_name;
      send.name = fmt::format("send {} chunk {} mb {} to rank {}{}", forward ? "activation" : "gradient", w.chunk,
                              w.microbatch, to, phases.size() > 1 ? fmt::format(" (phase {})", p + 1) : "");
      send.collectives = std::move(phases[p]);
      send.sms = costs_.send_sms;
      if (send.collectives.empty()) send.duration = costs_.passes.p2p(r, to);
      send.deps.push_back(at);
      if (last_send != PipelineGraph::kNone && last_send != at) send.deps.push_back(last_send);
      at = out_.graph.add(std::move(send));
      last_send = at;
      if (blocking) out_.blocking_sends[ri].push_back(at);
    }
  }

  // Adds to `deps` what the input of F (or B) of `w` on rank `r` waits for.
  void input(int r, ChunkWork w, bool forward, std::vector<GraphNodeId>& deps) {
    const int stage = s_.stage_of(r, w.chunk);
    const int stream = s_.stream_of(r, w.chunk);
    GraphNodeId from = PipelineGraph::kNone;
    if (forward && stage == 0) return;
    if (!forward && stage == s_.stages() - 1) {
      from = forward_pass_(stream, stage, w.microbatch);
    } else {
      from = (forward ? forward_out_ : backward_out_)(stream, forward ? stage - 1 : stage + 1, w.microbatch);
    }
    K3SIM_ASSERT(from != PipelineGraph::kNone, "a pipeline pass whose input no pass of the schedule produces");
    if (std::find(deps.begin(), deps.end(), from) == deps.end()) deps.push_back(from);
  }

  const parallel::PipelineSchedule& s_;
  const PipelineGraphCosts& costs_;
  int microbatches_;
  Outputs forward_out_, backward_out_, forward_pass_;
  std::map<int, GraphNodeId> last_forward_send_, last_backward_send_;
  PipelineGraph out_;
};

}  // namespace

PipelineGraph pipeline_graph(const parallel::PipelineSchedule& schedule, const PipelineGraphCosts& costs) {
  return Builder(schedule, costs).build();
}

parallel::PipelineTimeline pipeline_timeline(const PipelineGraph& pipeline, const GraphTimes& times, bool with_passes) {
  parallel::PipelineTimeline t;
  const auto ranks = pipeline.passes.size();
  t.per_rank.resize(ranks);
  t.busy.assign(ranks, SimTime::zero());
  t.sending.assign(ranks, SimTime::zero());
  for (std::size_t r = 0; r < ranks; ++r) {
    for (const auto& p : pipeline.passes[r]) {
      t.busy[r] += p.duration;
      if (with_passes) t.per_rank[r].push_back({p.pass, times.start[p.first], times.end[p.node]});
    }
    for (GraphNodeId s : pipeline.blocking_sends[r]) t.sending[r] += times.end[s] - times.start[s];
    if (pipeline.last_compute[r] != PipelineGraph::kNone) t.makespan = std::max(t.makespan, times.end[pipeline.last_compute[r]]);
  }
  return t;
}

parallel::PipelineTimeline run_pipeline(const parallel::PipelineSchedule& schedule, const PipelineGraphCosts& costs,
                                        const PassRunner* runner, bool with_passes) {
  const auto pipeline = pipeline_graph(schedule, costs);
  return pipeline_timeline(pipeline, run_step_graph(pipeline.graph, runner), with_passes);
}

}  // namespace k3::exec
