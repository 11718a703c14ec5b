#include "sim/train/dp_phase.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <span>

#include "core/quantity.hpp"
#include "model/balancing/balancers.hpp"
#include "sim/train/step_accounting.hpp"
#include "sim/train/step_memory.hpp"

namespace k3::train {

namespace {

using exec::GraphNode;
using exec::GraphNodeId;
using exec::PipelineGraph;

constexpr double kCutTolerance = 1e-12;

// Where a chunk's parameters of one group divide into buckets: the fractions k x bucket / params, k = 1..n-1, of
// the chunk's parameters in the order a pass reaches them (backward: last layer first, as Megatron-Core orders
// its buckets; forward: first layer first).
std::vector<double> bucket_cuts(double params, double bucket) {
  std::vector<double> cuts;
  for (double at = bucket; at < params * (1 - kCutTolerance); at += bucket) cuts.push_back(at / params);
  return cuts;
}

// The parts a pass splits into so that every group's bucket boundary falls between two parts: the fractions
// of the pass each part runs, and where each part starts.
struct PassCuts {
  std::vector<double> fractions, starts;
};
PassCuts merge_cuts(const std::vector<std::vector<double>>& groups) {
  std::vector<double> all{1.0};
  for (const auto& g : groups) all.insert(all.end(), g.begin(), g.end());
  std::sort(all.begin(), all.end());
  PassCuts c;
  double at = 0;
  for (double x : all) {
    if (x - at <= kCutTolerance) continue;
    c.starts.push_back(at);
    c.fractions.push_back(x - at);
    at = x;
  }
  return c;
}

// The parameters in bucket k of `params` split into buckets of `bucket` (the last one holds the rest).
double bucket_share(double params, double bucket, std::size_t k) {
  return std::min(params, bucket * static_cast<double>(k + 1)) - bucket * static_cast<double>(k);
}

// How many of `cuts` lie at or before `at`: the bucket a pass part starting at `at` is in.
std::size_t bucket_at(const std::vector<double>& cuts, double at) {
  return static_cast<std::size_t>(std::count_if(cuts.begin(), cuts.end(), [&](double c) { return c <= at + kCutTolerance; }));
}

net::CollectiveSpec ring(net::CollectiveOp op, std::span<const parallel::GpuIndex> group, double bytes) {
  net::CollectiveSpec s;
  s.op = op;
  s.algorithm = net::CollectiveAlgorithm::ring;
  s.ranks.assign(group.begin(), group.end());
  s.bytes = bytes;
  return s;
}

// One group's side of a rank's DP work: its GPUs, how many groups of the job do the same, its bucket size and
// the stream its collectives run on.
struct DpGroup {
  std::vector<parallel::GpuIndex> gpus;
  double copies = 0;
  double bucket_params = 0;
  const char* stream = "dp";
  const char* name = "DP";
  bool active(double params) const { return gpus.size() > 1 && params > 0; }
};

class DpWorkBuilder {
 public:
  DpWorkBuilder(const AccountingInputs& in, exec::PipelineGraph& pipeline, int ring_sms)
      : in_(in), p_(pipeline), ring_sms_(ring_sms) {}

  DpWork build() {
    const auto& L = in_.plan.map.layout();
    const auto& sc = in_.scenario;
    data_ranks_ = L.dp * L.cp;
    expert_dp_ = parallel::expert_dp(L);
    zero_ = L.zero_stage >= 1;
    const double stage = static_cast<double>(parallel::stage_ranks(L));
    // Megatron-Core DistributedDataParallelConfig.bucket_size: "If unspecified, MCore uses a default value of
    // max(40000000, 1000000 * dp_size) parameters".
    const double floor_params = in_.prov.add_exact(
        "dp.bucket_min_params", 40e6, "parameters", core::SourceKind::assumption,
        "Megatron-Core DistributedDataParallelConfig.bucket_size default: max(40 M, 1 M x dp_size) parameters per "
        "bucket");
    const auto bucket = [&](int ranks) { return std::max(floor_params, 1e6 * ranks); };
    // fp32 by default (Megatron-LM with BF16 forces --accumulate-allreduce-grads-in-fp32); 2 bytes when
    // precision.gradient_reduce says the run reduced its BF16/FP16 gradients as they are.
    grad_bytes_ = sc.precision.gradient_reduce_bytes;
    out_.gradient_label = zero_ ? "exposed: DP gradient reduce-scatter" : "exposed: DP gradient all-reduce";
    for (int r = 0; r < in_.plan.schedule.ranks; ++r) {
      const parallel::GpuIndex base = in_.plan.map.gpu_of({0, 0, 0, r});
      const auto dense = in_.plan.map.dp_group(base);
      const auto experts = in_.plan.map.expert_dp_group(base);
      dense_ = {{dense.begin(), dense.end()}, stage / data_ranks_, bucket(data_ranks_), "dp", "DP"};
      expert_ = {{experts.begin(), experts.end()}, stage / expert_dp_, bucket(expert_dp_), "edp", "expert DP"};
      out_.ranks.emplace_back();
      add_rank(r);
    }
    out_.assumptions.push_back(fmt::format(
        "DP: gradients reduced in {} with ring {} over DP x CP {} (dense) and EDP {} (experts), {}; parameters "
        "all-gathered in BF16 bucket by bucket at the start of the step, each bucket ahead of the part of the chunk's "
        "first forward pass that uses it (Megatron-Core overlap-grad-reduce / overlap-param-gather; gradients and "
        "parameters taken as produced and used in proportion to the pass's time); rings run on the step's network "
        "beside the passes' transfers",
        grad_bytes_ == 4 ? "fp32" : "16-bit floats", zero_ ? "reduce-scatter" : "all-reduce", data_ranks_, expert_dp_,
        L.fsdp ? "inside the passes (FSDP)"
        : L.overlap_grad_reduce
            ? fmt::format("in buckets of max({:.0f} M, 1 M x ranks) parameters as the rank's first chunk's last "
                          "backward pass produces them, its other chunks' in one bucket after their last backward pass "
                          "(Megatron-Core buckets only the first model chunk)", floor_params / 1e6)
            : "after the rank's last backward pass"));
    out_.assumptions.push_back(fmt::format(
        "optimizer: AdamW moves 30 B per parameter of the local shard, Muon 26 B plus {} Newton-Schulz iterations "
        "on full matrices after an all-gather of gradient shards (Moonlight distributed Muon, arXiv:2502.16982){}",
        sc.optimizer.newton_schulz_iterations,
        sc.optimizer.per_head_attention
            ? "; attention projections per head (K3's per-head Muon): one matrix per head, and no gather for heads a "
              "head-aligned shard holds whole"
            : ""));
    return std::move(out_);
  }

 private:
  GraphNodeId add_comm(int r, const DpGroup& g, std::string name, net::CollectiveSpec spec, std::vector<GraphNodeId> deps) {
    GraphNode n;
    n.kind = exec::GraphNodeKind::collective;
    n.rank = r;
    n.stream = g.stream;
    n.name = std::move(name);
    n.collectives = {std::move(spec)};
    n.sms = ring_sms_;
    auto& last = last_on_[g.stream];
    if (last != PipelineGraph::kNone) deps.push_back(last);
    n.deps = std::move(deps);
    last = p_.graph.add(std::move(n));
    out_.copies.emplace_back(last, g.copies);
    return last;
  }

  // Splits pass `index` of rank `r` at the groups' bucket cuts; an already split pass (a chunk's only forward
  // and last backward being one F&B pass) stays as it is, one part.
  std::vector<GraphNodeId> split_pass(int r, std::size_t index, const PassCuts& cuts) {
    auto& sp = p_.passes[static_cast<std::size_t>(r)][index];
    if (sp.first != sp.node || cuts.fractions.size() == 1) return {sp.node};
    auto parts = p_.graph.split(sp.node, cuts.fractions);
    sp.first = parts.front();
    return parts;
  }

  void add_rank(int r) {
    const auto& L = in_.plan.map.layout();
    const auto ri = static_cast<std::size_t>(r);
    auto& nodes = out_.ranks.back();
    last_on_.clear();
    for (const char* s : {"dp", "edp"}) last_on_[s] = PipelineGraph::kNone;
    std::vector<GraphNodeId> after_passes{p_.last_compute[ri]};
    // Each stream's collectives in the order the passes need (gathers) or free (gradients) them.
    const auto in_pass_order = [&](const std::vector<std::vector<std::size_t>>& index) {
      std::vector<int> chunks;
      for (int c = 0; c < in_.plan.schedule.chunks_per_rank; ++c) {
        if (index[ri][static_cast<std::size_t>(c)] != PipelineGraph::kNoPass) chunks.push_back(c);
      }
      std::sort(chunks.begin(), chunks.end(), [&](int a, int b) {
        return index[ri][static_cast<std::size_t>(a)] < index[ri][static_cast<std::size_t>(b)];
      });
      return chunks;
    };
    const auto params_of = [&](int c) {
      return rank_params(in_.plan.blocks, in_.plan.stages, {in_.plan.schedule.stage_of(r, c)}, L.tp, L.ep, L.etp);
    };
    if (zero_ && !L.fsdp) {
      for (int c : in_pass_order(p_.first_forward)) add_gathers(r, c, params_of(c), p_.first_forward[ri][static_cast<std::size_t>(c)], nodes);
    }
    if (!L.fsdp) {  // FSDP reduces each layer's gradients in its pass
      for (int c : in_pass_order(p_.last_gradient)) add_gradients(r, c, params_of(c), p_.last_gradient[ri][static_cast<std::size_t>(c)], nodes);
    }
    for (GraphNodeId g : nodes.gradient) after_passes.push_back(g);
    add_tail(r, after_passes, nodes);
  }

  // The parameters per bucket of chunk `c` of a group holding `n` of them: Megatron-Core buckets only a rank's first
  // model chunk ("Turn off bucketing for model_chunk 2 onwards, since communication for these model chunks is
  // overlapped with compute anyway", megatron/training/training.py, disable_bucketing=(model_chunk_idx > 0)).
  static double bucket_of(const DpGroup& g, double n, int c) { return c == 0 ? g.bucket_params : n; }

  // Updated parameters (BF16), bucket by bucket, each part of the chunk's first forward pass after its buckets.
  void add_gathers(int r, int c, const RankParams& params, std::size_t forward, DpRankNodes& nodes) {
    std::vector<std::vector<double>> cuts;
    std::vector<std::vector<GraphNodeId>> gathers;
    for (const auto* g : {&dense_, &expert_}) {
      const double n = g == &dense_ ? params.dense : params.routed;
      const double bucket = bucket_of(*g, n, c);
      cuts.push_back(g->active(n) ? bucket_cuts(n, bucket) : std::vector<double>{});
      gathers.emplace_back();
      if (!g->active(n)) continue;
      const std::size_t buckets = cuts.back().size() + 1;
      for (std::size_t k = 0; k < buckets; ++k) {
        const double share = bucket_share(n, bucket, k);
        gathers.back().push_back(add_comm(r, *g, fmt::format("{} parameter all-gather chunk {} bucket {}", g->name, c, k),
                                          ring(net::CollectiveOp::allgather, g->gpus, share * 2.0), {}));
        nodes.param_gather.push_back(gathers.back().back());
      }
    }
    const auto merged = merge_cuts(cuts);
    const auto parts = split_pass(r, forward, merged);
    for (std::size_t j = 0; j < parts.size(); ++j) {
      auto& deps = p_.graph.nodes[parts[j]].deps;
      for (std::size_t g = 0; g < gathers.size(); ++g) {
        if (gathers[g].empty()) continue;
        // An unsplit pass (one part) waits for all of its buckets.
        const std::size_t k = parts.size() == 1 ? gathers[g].size() - 1 : bucket_at(cuts[g], merged.starts[j]);
        deps.push_back(gathers[g][std::min(k, gathers[g].size() - 1)]);
      }
      nodes.gathered_parts.push_back(parts[j]);
    }
  }

  void add_gradients(int r, int c, const RankParams& params, std::size_t backward, DpRankNodes& nodes) {
    const auto& L = in_.plan.map.layout();
    const auto op = zero_ ? net::CollectiveOp::reducescatter : net::CollectiveOp::allreduce;
    const char* what = zero_ ? "reduce-scatter" : "all-reduce";
    std::vector<std::vector<double>> cuts;
    for (const auto* g : {&dense_, &expert_}) {
      const double n = g == &dense_ ? params.dense : params.routed;
      cuts.push_back(g->active(n) && L.overlap_grad_reduce ? bucket_cuts(n, bucket_of(*g, n, c)) : std::vector<double>{});
    }
    const auto merged = merge_cuts(cuts);
    const auto parts = L.overlap_grad_reduce ? split_pass(r, backward, merged)
                                             : std::vector<GraphNodeId>{p_.last_compute[static_cast<std::size_t>(r)]};
    for (std::size_t gi = 0; gi < 2; ++gi) {
      const DpGroup& g = gi == 0 ? dense_ : expert_;
      const double n = gi == 0 ? params.dense : params.routed;
      if (!g.active(n)) continue;
      const double bucket = L.overlap_grad_reduce ? bucket_of(g, n, c) : n;
      const std::size_t buckets = L.overlap_grad_reduce ? cuts[gi].size() + 1 : 1;
      for (std::size_t k = 0; k < buckets; ++k) {
        const double share = bucket_share(n, bucket, k);
        // Ready when the part that ends at the bucket's last parameter has run.
        const double ends = std::min(1.0, bucket * static_cast<double>(k + 1) / n);
        std::size_t part = parts.size() - 1;
        if (parts.size() > 1) {
          part = 0;
          while (part + 1 < parts.size() && merged.starts[part + 1] < ends - kCutTolerance) ++part;
        }
        nodes.gradient.push_back(add_comm(r, g, fmt::format("{} gradient {} chunk {} bucket {}", g.name, what, c, k),
                                          ring(op, g.gpus, share * grad_bytes_), {parts[part]}));
      }
    }
  }

  void add_tail(int r, std::vector<GraphNodeId> deps, DpRankNodes& nodes) {
    const auto& L = in_.plan.map.layout();
    const auto& sc = in_.scenario;
    const auto stage_ids = in_.plan.schedule.stages_held(r);
    const auto params = rank_params(in_.plan.blocks, in_.plan.stages, stage_ids, L.tp, L.ep, L.etp);
    const auto update =
        optimizer_update(sc, L, in_.plan.blocks, in_.plan.stages, stage_ids, in_.cost, in_.topology.gpu_type());
    const auto chain = [&](GraphNode n, std::string label) {
      n.rank = r;
      n.deps = deps;
      if (n.stream == "dp" && last_on_["dp"] != PipelineGraph::kNone) n.deps.push_back(last_on_["dp"]);
      const GraphNodeId id = p_.graph.add(std::move(n));
      if (p_.graph.nodes[id].stream == "dp") last_on_["dp"] = id;
      nodes.tail.emplace_back(id, std::move(label));
      deps = {id};
    };
    if (sc.optimizer.kind == model::Optimizer::Muon && zero_) {
      // Moonlight's distributed Muon gathers each matrix's gradient shards (BF16) before Newton-Schulz; a
      // per-head block that one rank's shard holds whole needs no gather.
      const double gathered = params.dense + params.routed > 0
                                  ? (update.muon_params - update.whole_head_params) / (params.dense + params.routed)
                                  : 0;
      GraphNode n;
      n.kind = exec::GraphNodeKind::collective;
      n.stream = "dp";
      n.name = "Muon gradient all-gather";
      n.sms = ring_sms_;
      for (const auto* g : {&dense_, &expert_}) {
        const double p = g == &dense_ ? params.dense : params.routed;
        if (!g->active(p) || gathered <= 0) continue;
        n.collectives.push_back(ring(net::CollectiveOp::allgather, g->gpus, p * 2.0 * gathered));
        const auto bytes = exec::collective_link_bytes(n.collectives.back(), in_.topology);
        out_.link_bytes.add(bytes, g->copies);
      }
      if (!n.collectives.empty()) chain(std::move(n), "exposed: Muon gradient all-gather");
    }
    add_balancer(r, stage_ids, chain);
    GraphNode opt;
    opt.stream = "compute";
    opt.name = "optimizer step";
    // Every GPU of the rank updates its own shard; the slowest finishes last, and the parameter gathers wait for it.
    // An offloaded share runs on the host meanwhile, whatever the GPUs' speed.
    opt.duration = core::SimTime::from_seconds(
        std::max(update.gpu_seconds / in_.plan.simulated.slowest_in(r), update.host_seconds));
    chain(std::move(opt), "optimizer step");
  }

  // The router bias update of a balanced MoE run, once per MoE layer per step (issue 16): the balancer needs the
  // global view of the step's routing. QB-histogram (K3) builds per-rank histograms of B bins per expert from
  // the router scores (a memory-bound pass reading each token's n fp32 scores) and all-reduces the n x B counts
  // over the ranks that saw the step's tokens (the DP group); sign-SGD all-reduces n counts. After the passes,
  // when the step's routing is complete; a uniform expert load has no balancer.
  template <class Chain>
  void add_balancer(int r, const std::vector<int>& stage_ids, const Chain& chain) {
    const auto& sc = in_.scenario;
    if (sc.expert_load.kind == workload::ExpertLoadKind::uniform || !in_.spec.has_moe()) return;
    const auto balancer = balancing::make_balancer(
        balancing::parse_balancer(sc.expert_load.balancer, "expert_load.balancer", sc.expert_load.bins));
    int moe_layers = 0;
    for (int s : stage_ids) {
      for (int b : in_.plan.stages[static_cast<std::size_t>(s)].blocks) {
        moe_layers += model::has_expert_dispatch(in_.plan.blocks[static_cast<std::size_t>(b)]) ? 1 : 0;
      }
    }
    if (moe_layers == 0) return;
    const int experts = in_.spec.moe.routed_experts;
    // Each of the DP x CP ranks histograms its share of the step's tokens (1/CP of each sequence).
    const double tokens_per_rank = in_.plan.microbatches * in_.plan.microbatch.tokens() / in_.plan.map.layout().cp;
    const double bytes = balancer->allreduce_bytes_per_layer(experts, tokens_per_rank * data_ranks_);
    if (balancer->bins() > 0) {
      GraphNode k;
      k.stream = "compute";
      k.name = fmt::format("load balancer histograms ({} MoE layers)", moe_layers);
      k.duration = core::SimTime::from_seconds(
          moe_layers * std::max(tokens_per_rank * experts * 4.0 / sustained_hbm(in_.cost), in_.cost.defaults().min_kernel_s));
      chain(std::move(k), "load balancer: histogram kernels");
    }
    if (data_ranks_ <= 1 || bytes <= 0) return;
    for (int l = 0; l < moe_layers; ++l) {
      GraphNode a;
      a.kind = exec::GraphNodeKind::collective;
      a.stream = "dp";
      a.sms = ring_sms_;
      a.name = fmt::format("load balancer all-reduce, MoE layer {} of {}", l + 1, moe_layers);
      a.collectives = {ring(net::CollectiveOp::allreduce, dense_.gpus, bytes)};
      chain(std::move(a), "exposed: load balancer all-reduce");
      out_.copies.emplace_back(nodes_of_rank().tail.back().first, dense_.copies);
    }
    if (r == 0) {
      out_.assumptions.push_back(fmt::format(
          "load balancer {}: per MoE layer per step, {:.4g} MB all-reduced over DP x CP {}{}, after the backward passes",
          balancer->name(), bytes / 1e6, data_ranks_,
          balancer->bins() > 0 ? fmt::format(" and a histogram kernel reading {} tokens x {} fp32 router scores",
                                             core::format_count(tokens_per_rank), experts)
                               : std::string()));
    }
  }

  const AccountingInputs& in_;
  exec::PipelineGraph& p_;
  int ring_sms_;
  DpWork out_;
  DpRankNodes& nodes_of_rank() { return out_.ranks.back(); }
  int data_ranks_ = 1, expert_dp_ = 1;
  bool zero_ = false;
  double grad_bytes_ = 4;
  DpGroup dense_, expert_;
  std::map<std::string, GraphNodeId> last_on_;  // per DP stream of the rank being built: its last node
};

}  // namespace

DpWork add_dp_work(const AccountingInputs& in, exec::PipelineGraph& pipeline, int ring_sms) {
  return DpWorkBuilder(in, pipeline, ring_sms).build();
}

DpPhase dp_phase_of(const DpWork& work, const exec::PipelineGraph& pipeline, const exec::GraphTimes& times, int rank) {
  const auto ri = static_cast<std::size_t>(rank);
  const auto& nodes = work.ranks[ri];
  const auto& g = pipeline.graph;
  DpPhase d;
  // First forward passes that waited for their parameters: the part started after its other inputs were there.
  for (GraphNodeId part : nodes.gathered_parts) {
    core::SimTime other;
    for (GraphNodeId dep : g.nodes[part].deps) {
      if (std::find(nodes.param_gather.begin(), nodes.param_gather.end(), dep) == nodes.param_gather.end()) {
        other = std::max(other, times.end[dep]);
      }
    }
    if (times.start[part] > other) d.param_gather_wait += times.start[part] - other;
  }
  const core::SimTime passes_end = times.end[pipeline.last_compute[ri]];
  if (!nodes.tail.empty()) {
    const core::SimTime tail_start = times.start[nodes.tail.front().first];
    if (tail_start > passes_end) {
      d.breakdown.push_back({work.gradient_label, "communication", (tail_start - passes_end).seconds()});
    }
  }
  for (const auto& tail_node : nodes.tail) {
    const GraphNodeId node = tail_node.first;
    const std::string& label = tail_node.second;
    const double s = (times.end[node] - times.start[node]).seconds();
    const char* category = label == "optimizer step" ? "optimizer" : label.rfind("exposed", 0) == 0 ? "communication" : "compute";
    if (s <= 0) continue;
    // One line per label (a balancer all-reduce per MoE layer is one line).
    const auto same = std::find_if(d.breakdown.begin(), d.breakdown.end(), [&](const TimeShare& t) { return t.name == label; });
    if (same != d.breakdown.end()) {
      same->seconds += s;
    } else {
      d.breakdown.push_back({label, category, s});
    }
  }
  const auto span = [&](GraphNodeId n, const char* kind) {
    d.trace.push_back({rank, "dp", g.nodes[n].name, kind, times.start[n].seconds(), times.end[n].seconds()});
  };
  for (GraphNodeId n : nodes.param_gather) span(n, "dp");
  for (GraphNodeId n : nodes.gradient) span(n, "dp");
  for (const auto& [n, label] : nodes.tail) span(n, g.nodes[n].kind == exec::GraphNodeKind::compute ? "optimizer" : "dp");
  return d;
}

}  // namespace k3::train
