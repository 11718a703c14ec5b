#include "sim/serve/iteration_cost.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "model/ops.hpp"
#include "sim/serve/two_batch_overlap.hpp"
#include "sim/workload/pass_builder.hpp"

namespace k3::serve {

using model::Op;
using model::OpKind;

namespace {

// 1/32 of an octave: memo keys, and the value every shape in the bucket is costed at (so a run does not depend
// on which shape reached a bucket first).
int bucket(double x) { return x <= 0 ? INT_MIN : static_cast<int>(std::lround(std::log2(x) * 32)); }
double centre(int b) { return b == INT_MIN ? 0.0 : std::exp2(b / 32.0); }
double rounded(double x) { return centre(bucket(x)); }

// The op at `f` times its tokens: activations and work scale, weights do not.
Op scale_tokens(const Op& op, double f) {
  Op o = op;
  o.fwd_flops *= f;
  o.read_bytes = op.weight_bytes + (op.read_bytes - op.weight_bytes) * f;
  o.write_bytes *= f;
  if (auto* g = std::get_if<model::GemmShape>(&o.shape)) g->m *= f;
  if (auto* e = std::get_if<model::ExpertGemmShape>(&o.shape)) e->tokens_per_expert *= f;
  if (auto* e = std::get_if<model::ElementwiseShape>(&o.shape)) e->elements *= f;
  if (auto* s = std::get_if<model::ScanShape>(&o.shape)) s->tokens *= f;
  return o;
}

bool is_loss(const Op& op) { return op.name.find("cross_entropy") != std::string::npos; }

// A decode step's attention or state update reads a cache or a state per sequence: a memory-bound kernel (FlashMLA,
// KDA's recurrent step) that no measured table describes (they time prefill and training shapes), so it is priced
// by its math and bytes alone: without the shape the tables are looked up by.
Op priced_by_roofline(Op op) {
  op.shape = model::ElementwiseShape{};
  return op;
}

}  // namespace

std::optional<InstanceShapeProblem> instance_shape_problem(const InstanceSpec& is, int gpus, int gpus_per_node,
                                                           int layers) {
  auto divides = [&](int degree, int of, const char* key,
                     const char* meaning) -> std::optional<InstanceShapeProblem> {
    if (degree >= 1 && of % degree == 0) return std::nullopt;
    const std::string whose =
        of == gpus ? fmt::format("the instance's {} GPUs ({} nodes of {})", gpus, gpus / gpus_per_node, gpus_per_node)
                   : fmt::format("the {} GPUs of each of its {} pipeline stages", of, is.pp);
    return InstanceShapeProblem{key, fmt::format("{} {} does not divide {}", key, degree, whose),
                                fmt::format("a divisor of {} ({})", of, meaning)};
  };
  if (auto p = divides(is.pp, gpus, "pp", "pipeline stages of GPUs / pp each")) return p;
  if (is.pp > layers)
    return InstanceShapeProblem{"pp", fmt::format("{} pipeline stages for {} layers", is.pp, layers),
                                fmt::format("at most {} stages", layers)};
  const int stage = gpus / is.pp;
  if (stage < 1) return InstanceShapeProblem{"pp", "an instance needs at least one GPU", "nodes >= 1"};
  if (auto p = divides(is.attention_dp, stage, "attention_dp", "attention TP = GPUs / attention_dp")) return p;
  return divides(is.moe_tp, stage, "moe_tp", "each expert split moe_tp ways; EP = GPUs / moe_tp");
}

IterationCostModel::IterationCostModel(const model::ModelSpec& spec, const topo::Topology& topology,
                                       const cost::OpCostModel& cost, InstanceCostOptions options)
    : spec_(spec), topo_(topology), cost_(cost), opt_(std::move(options)) {
  const int all = static_cast<int>(opt_.gpus.size());
  if (const auto p = instance_shape_problem(opt_.instance, all, topology.gpus_per_node(),
                                            static_cast<int>(spec_.layers.size())))
    throw core::InputError({"", "deployment." + p->key, 0}, p->problem, p->allowed);
  stage_gpus_.assign(opt_.gpus.begin(), opt_.gpus.begin() + all / opt_.instance.pp);
  const int g = gpus();
  tp_ = g / opt_.instance.attention_dp;
  nodes_ = std::max(1, g / topology.gpus_per_node());
  if (opt_.network == nullptr) opt_.network = &net::default_network_model();
}

IterationTime IterationCostModel::time(const BatchShape& s) {
  const auto key = std::make_tuple(bucket(s.prefill_tokens), bucket(s.prefill_pairs), bucket(s.prefill_last_chunks),
                                   bucket(s.decode_sequences), bucket(s.decode_context), bucket(s.instance_tokens));
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  BatchShape r{rounded(s.prefill_tokens), rounded(s.prefill_pairs), rounded(s.prefill_last_chunks),
               rounded(s.decode_sequences), rounded(s.decode_context), rounded(s.instance_tokens)};
  const IterationTime t = compute(r);
  memo_.emplace(key, t);
  return t;
}

IterationTime IterationCostModel::compute(const BatchShape& s) {
  IterationTime total;
  const double q = tokens_per_step();
  const double tokens = s.prefill_tokens + s.decode_sequences * q;
  if (tokens <= 0) return total;
  model::MicroBatch mb;
  mb.sequences = 1;
  mb.seq = tokens;
  mb.dtypes.weight_bytes = opt_.weight_bytes_per_param;
  mb.dtypes.dispatch_bytes = opt_.dispatch_bytes_per_element;
  mb.dtypes.combine_bytes = opt_.combine_bytes_per_element;
  const auto blocks = model::build_ops(spec_, mb);

  // Layers of one kind cost the same: cost each kind once.
  std::map<std::tuple<int, std::string, int, int>, HalfCost> full, half;
  // Per pipeline stage (one without pp): its blocks' stages, for two-batch overlap one half batch's, every block
  // in turn; without it, where the combine goes in pieces, the whole batch's.
  struct PipelineStage {
    std::vector<IterationStage> micro_batch, whole_batch;
    core::Seconds one_batch = 0;
    // whole_batch holds a combine in pieces or compute beside a communication: simulated on the streams.
    bool on_streams = false;
  };
  const int pp = opt_.instance.pp;
  const int layers = static_cast<int>(spec_.layers.size());
  std::vector<PipelineStage> pipeline(static_cast<std::size_t>(pp));
  bool communicates = false;
  for (const auto& b : blocks) {
    int window = 0, chunk = 0;
    if (b.role == model::BlockRole::Layer) {
      const auto& l = spec_.layers[static_cast<std::size_t>(b.layer - 1)];
      window = l.window, chunk = l.attention_chunk;
    }
    int repeats = 1;
    if (b.role == model::BlockRole::Mtp) {
      // Each draft token runs the MTP block once, in decode steps only, costed at the verify shape: its weight and
      // KV reads are what a draft step reads, its math an upper bound (a draft step computes one token per
      // sequence).
      if (opt_.mtp_draft_tokens == 0 || s.decode_sequences <= 0 || b.layer > 1) continue;
      repeats = opt_.mtp_draft_tokens;
    }
    // Layers split evenly over the stages in order; the embedding on the first, the head on the last.
    const int at = b.role == model::BlockRole::Embedding ? 0
                   : b.role == model::BlockRole::Layer   ? (b.layer - 1) * pp / layers
                                                         : pp - 1;
    auto& st = pipeline[static_cast<std::size_t>(at)];
    const auto key = std::make_tuple(static_cast<int>(b.role), b.kind, window, chunk);
    auto cost_at = [&](auto& cache, double f) -> const HalfCost& {
      auto it = cache.find(key);
      if (it == cache.end()) it = cache.emplace(key, block_cost(b, s, f)).first;
      return it->second;
    };
    const HalfCost& c = cost_at(full, 1.0);
    communicates = communicates || (model::has_expert_dispatch(b) && c.comm > 0);
    st.one_batch += repeats * (c.compute + c.comm);
    if (opt_.two_batch_overlap) {
      const HalfCost& h = cost_at(half, 0.5);
      for (int r = 0; r < repeats; ++r) st.micro_batch.insert(st.micro_batch.end(), h.stages.begin(), h.stages.end());
    } else if (opt_.combine_with_down_gemm || opt_.shared_experts_with_dispatch) {
      for (int r = 0; r < repeats; ++r) st.whole_batch.insert(st.whole_batch.end(), c.stages.begin(), c.stages.end());
      for (const auto& piece : c.stages) st.on_streams = st.on_streams || piece.pieces > 1 || piece.beside_communication;
    }
    total.attention += repeats * c.parts.attention;
    total.experts += repeats * c.parts.experts;
    total.other_compute += repeats * c.parts.other_compute;
    total.communication += repeats * c.parts.communication;
  }
  const double offload = opt_.instance.weight_offload_bytes_per_gpu;
  if (offload > 0) {
    K3SIM_ASSERT(opt_.host_link_bytes_per_s > 0, "weights offloaded on a GPU with no host link");
    total.host_weights = offload / opt_.host_link_bytes_per_s;
  }
  // Two-batch overlap where there is an all-to-all to hide (SGLang enables it for MoE models over DeepEP).
  for (const auto& st : pipeline) {
    core::Seconds t = st.one_batch;
    if (opt_.two_batch_overlap && communicates) {
      t = iteration_on_streams(st.micro_batch, 2, opt_.comm_sm_slowdown);
    } else if (st.on_streams) {
      t = iteration_on_streams(st.whole_batch, 1, opt_.comm_sm_slowdown);
    }
    // A new batch enters the pipeline as soon as its slowest stage is free; one batch passes every stage and each
    // hop between them (the stage's activations, sent point to point by every GPU to its peer at once).
    t += total.host_weights;
    total.total = std::max(total.total, t);
    total.latency += t;
  }
  if (pp > 1) {
    total.latency += (pp - 1) * stage_send(s.instance_tokens * spec_.hidden * 2 / gpus());
    // The parts as one stage's mean share, comparable with `total`, the time a stage takes per batch.
    for (auto* part : {&total.attention, &total.experts, &total.other_compute, &total.communication}) *part /= pp;
  }
  return total;
}

// The activations a GPU of one stage sends its peer in the next stage (the first GPU of each), alone on the network.
core::Seconds IterationCostModel::stage_send(double bytes) {
  net::CollectiveSpec c;
  c.op = net::CollectiveOp::sendrecv;
  c.algorithm = net::CollectiveAlgorithm::flat;
  c.ranks = {opt_.gpus.front(), opt_.gpus[stage_gpus_.size()]};
  return memoised_collective(5, std::move(c), bytes);
}

IterationCostModel::HalfCost IterationCostModel::block_cost(const model::OpBlock& block, const BatchShape& s,
                                                            double f) {
  HalfCost out;
  const double q = tokens_per_step();
  const double rank_tokens = s.prefill_tokens + s.decode_sequences * q;
  const double gpus = this->gpus();
  const auto& m = spec_.moe;
  const double experts = std::max(1, m.routed_experts), k = std::max(1, m.experts_per_token);
  const bool low_latency = s.prefill_tokens <= 0;
  const int moe_tp = opt_.instance.moe_tp;
  // The combine sent expert by expert under the down GEMM: DeepEP's low-latency combine polls one signal per local
  // expert that the GEMM raises when the expert's rows are done, so the GEMM is its own stage and the combine comes
  // in as many pieces as the GPU holds experts.
  const bool combine_in_pieces = opt_.combine_with_down_gemm && low_latency && moe_tp == 1;
  const int expert_signals = std::max(
      1, static_cast<int>(std::lround((experts + opt_.instance.redundant_experts) / std::max(1.0, gpus))));
  // One stage per run of compute between communication kernels, in the block's op order.
  const auto stage = [&out](core::Seconds t, bool communication, bool own = false, int pieces = 1) {
    if (!communication && !own && !out.stages.empty() && !out.stages.back().communication) {
      out.stages.back().seconds += t;
    } else {
      out.stages.push_back({t, communication, pieces});
    }
  };
  // The next compute after the down GEMM starts a stage of its own too.
  bool after_down_gemm = false;
  // The shared experts beside the dispatch: one stage of their sum, placed after the dispatch's once the block is done.
  std::optional<std::size_t> dispatch_stage;
  core::Seconds beside_dispatch = 0;
  auto add = [&](const Op& op, core::Seconds t) {
    out.compute += t;
    if (dispatch_stage && opt_.shared_experts_with_dispatch && workload::is_shared_expert(op)) {
      beside_dispatch += t;
    } else {
      const bool down_gemm = combine_in_pieces && op.name == "routed_down";
      stage(t, false, down_gemm || after_down_gemm);
      after_down_gemm = down_gemm;
    }
    switch (op.kind) {
      case OpKind::AttentionCore:
      case OpKind::KdaChunkScan: out.parts.attention += t; break;
      case OpKind::ExpertGemm: out.parts.experts += t; break;
      default: (op.routed ? out.parts.experts : out.parts.other_compute) += t;
    }
  };
  // Head rows: only the tokens that need logits.
  const double head_rows = s.prefill_last_chunks + s.decode_sequences * q;
  for (const Op& raw : block.ops) {
    if (is_loss(raw)) continue;
    if (raw.kind == OpKind::Communication) {
      const auto& c = std::get<model::CommShape>(raw.shape);
      const double per_gpu_tokens = s.instance_tokens * f / gpus;
      const double token_bytes = c.elements_per_copy * c.bytes_per_element;
      if (moe_tp > 1) {
        // Every GPU computes its expert shards for the tokens of all ranks: gathered before, reduce-scattered after
        // (NCCL rings). With one attention rank the tokens are already on every GPU and the TP all-reduce below sums
        // the expert outputs.
        const double t = opt_.instance.attention_dp > 1
                             ? ring_collective(raw.name == "combine", s.instance_tokens * f * token_bytes)
                             : 0.0;
        out.comm += t;
        out.parts.communication += t;
        if (t > 0) stage(t, true);
        after_down_gemm = false;
        continue;
      }
      // Normal mode sends one copy per destination GPU (and one per node over RDMA); low-latency one per
      // (token, expert).
      const double gpu_copies = low_latency ? k : gpus * (1 - std::pow(1 - 1 / gpus, k));
      const double node_hit = 1 - std::pow(1 - 1.0 / nodes_, k);
      const double t = alltoall(per_gpu_tokens * gpu_copies * token_bytes, low_latency,
                                per_gpu_tokens * node_hit * token_bytes);
      out.comm += t;
      out.parts.communication += t;
      stage(t, true, false, after_down_gemm && raw.name == "combine" ? expert_signals : 1);
      if (raw.name == "dispatch") dispatch_stage = out.stages.size() - 1;
      after_down_gemm = false;
      continue;
    }
    if (raw.kind == OpKind::AttentionCore) {
      const auto& a = std::get<model::AttentionShape>(raw.shape);
      const double heads = std::max(1.0, static_cast<double>(a.heads) / tp_);
      Op p = raw;
      p.fwd_flops = 2 * heads * (a.qk_dim + a.v_dim) * s.prefill_pairs * f;
      p.read_bytes = s.prefill_tokens * f * heads * (2.0 * a.qk_dim + a.v_dim) * 2;
      p.write_bytes = s.prefill_tokens * f * heads * a.v_dim * 2;
      p.weight_bytes = 0;
      // The kernel's shape for the measured tables: causal sequences whose pairs and tokens are the batch's (n
      // sequences of L tokens hold n L^2 / 2 pairs and n L tokens, so L = 2 pairs / tokens), heads on one TP rank.
      if (s.prefill_tokens > 0) {
        auto& shape = std::get<model::AttentionShape>(p.shape);
        shape.heads = static_cast<int>(heads);
        shape.seq = std::clamp(2 * s.prefill_pairs / s.prefill_tokens, 1.0, std::max(1.0, s.prefill_tokens * f));
        shape.sequences = s.prefill_tokens * f / shape.seq;
      }
      if (p.fwd_flops > 0) add(p, cost_.time(p).fwd);
      double context = s.decode_context * f;
      const double cap = a.window > 0 ? a.window : a.chunk;
      if (cap > 0) context = std::min(context, s.decode_sequences * f * cap);
      Op d = priced_by_roofline(p);
      if (a.kind == model::AttentionKind::MLA) {
        // Absorbed decode: every head attends over the shared latent (kv_lora + rope) and returns kv_lora wide.
        const double latent = spec_.mla.kv_lora_rank + spec_.mla.qk_rope_head_dim;
        d.fwd_flops = 2 * heads * (latent + spec_.mla.kv_lora_rank) * context * q;
        d.read_bytes = context * latent * opt_.kv_cache_bytes_per_element;
      } else {
        const double kv_heads = std::max(1.0, static_cast<double>(a.kv_heads) / tp_);
        d.fwd_flops = 2 * heads * (a.qk_dim + a.v_dim) * context * q;
        d.read_bytes = context * kv_heads * (a.qk_dim + a.v_dim) * opt_.kv_cache_bytes_per_element;
      }
      d.write_bytes = s.decode_sequences * f * q * heads * a.v_dim * 2;
      if (d.fwd_flops > 0) add(d, cost_.time(d).fwd);
      continue;
    }
    if (raw.kind == OpKind::KdaChunkScan) {
      const auto& sc = std::get<model::ScanShape>(raw.shape);
      const double heads = std::max(1.0, static_cast<double>(sc.heads) / tp_);
      if (s.prefill_tokens > 0) {
        const Op p = scale_tokens(workload::shard_for_tp(raw, tp_), f * s.prefill_tokens / rank_tokens);
        add(p, cost_.time(p).fwd);
      }
      if (s.decode_sequences > 0) {
        // Recurrent form per token and head: decay (d^2), k^T S (2 d^2), the delta-rule rank-1 update (2 d^2),
        // q^T S (2 d^2); the fp32 state is read and written once per step.
        Op d = priced_by_roofline(raw);
        const double state = heads * sc.d_k * sc.d_v;
        d.fwd_flops = 7 * state * s.decode_sequences * f * q;
        d.read_bytes = d.write_bytes = state * 4 * s.decode_sequences * f;
        d.weight_bytes = 0;
        add(d, cost_.time(d).fwd);
      }
      continue;
    }
    if (raw.routed) {
      // Copies reaching one GPU from all ranks (all of its EP rank's: each of the moe_tp GPUs holding a slice of
      // an expert sees all its tokens), and the local experts some token chose.
      const double ep = gpus / moe_tp;
      const double copies = s.instance_tokens * f * k / ep;
      Op o = model::scale_routed(raw, copies / (rank_tokens * k));
      if (raw.kind == OpKind::ExpertGemm) {
        const double local = (experts + opt_.instance.redundant_experts) / ep;
        const double touched = 1 - std::exp(-s.instance_tokens * f * k / experts);
        const double weights = raw.weight_bytes / experts * local * touched;
        o.read_bytes -= o.weight_bytes - weights;
        o.weight_bytes = weights;
        if (auto* e = std::get_if<model::ExpertGemmShape>(&o.shape)) {
          e->experts = std::max(1, static_cast<int>(std::lround(local)));
          e->tokens_per_expert = copies / std::max(1.0, local);
        }
        o = workload::shard_for_tp(o, moe_tp);
      }
      // The activation between the up and down GEMMs is as wide as the slice of the expert a GPU holds.
      if (raw.name == "routed_activation") o = workload::shard_for_tp(o, moe_tp, /*sequence_parallel=*/true);
      add(o, cost_.time(o).fwd + cost_.time(o).fwd_quant);
      continue;
    }
    const double share = block.role == model::BlockRole::Head ? head_rows / rank_tokens : 1.0;
    const Op o = scale_tokens(workload::shard_for_tp(raw, tp_), f * share);
    const auto t = cost_.time(o);
    add(o, t.fwd + t.fwd_quant);
  }
  if (beside_dispatch > 0) {
    IterationStage shared{beside_dispatch, false};
    shared.beside_communication = true;
    out.stages.insert(out.stages.begin() + static_cast<std::ptrdiff_t>(*dispatch_stage + 1), shared);
  }
  if (tp_ > 1 && block.role != model::BlockRole::Embedding) {
    // Attention output and FFN output are summed over the TP ranks.
    const double t = 2 * tp_allreduce(rank_tokens * f * spec_.hidden * 2);
    out.comm += t;
    out.parts.communication += t;
    stage(t, true);
  }
  return out;
}

// An all-to-all whose transfers all scale with `bytes_per_gpu` takes an almost affine time in it on an idle
// network (the same flows share the same links at the same rates, only longer), so it is simulated at grid
// points a quarter octave apart and interpolated linearly between them.
core::Seconds IterationCostModel::alltoall(double bytes_per_gpu, bool low_latency, double node_bytes) {
  if (gpus() < 2 || bytes_per_gpu <= 0) return 0;
  const double ratio = node_bytes / bytes_per_gpu;  // the same for every size of one model and instance
  const double x = std::log2(bytes_per_gpu) * 4;
  const int lo = static_cast<int>(std::floor(x));
  const double a = simulated_alltoall(lo, low_latency, ratio), b = simulated_alltoall(lo + 1, low_latency, ratio);
  const double b_lo = std::exp2(lo / 4.0), b_hi = std::exp2((lo + 1) / 4.0);
  return a + (b - a) * (bytes_per_gpu - b_lo) / (b_hi - b_lo);
}

core::Seconds IterationCostModel::simulated_alltoall(int grid, bool low_latency, double node_ratio) {
  const auto key = std::make_tuple(low_latency ? 1 : 0, grid, bucket(node_ratio));
  if (auto it = collectives_.find(key); it != collectives_.end()) return it->second;
  const double bytes = std::exp2(grid / 4.0);
  net::CollectiveSpec c;
  c.op = net::CollectiveOp::alltoall;
  c.algorithm = low_latency ? net::CollectiveAlgorithm::deepep_ll : net::CollectiveAlgorithm::deepep;
  c.ranks = stage_gpus_;
  c.bytes = bytes;
  if (!low_latency && nodes_ > 1) {
    const std::size_t n = c.ranks.size();
    const double per_gpu = bytes / static_cast<double>(n);
    const double to_node = std::clamp(rounded(node_ratio) * bytes, per_gpu, per_gpu * topo_.gpus_per_node());
    c.node_bytes.assign(n * static_cast<std::size_t>(nodes_), to_node);
  }
  const core::Seconds t = net::simulate_collective(topo_, c, *opt_.network, opt_.efficiency).time_s;
  collectives_.emplace(key, t);
  return t;
}

core::Seconds IterationCostModel::ring_collective(bool reduce_scatter, double bytes) {
  net::CollectiveSpec c;
  c.op = reduce_scatter ? net::CollectiveOp::reducescatter : net::CollectiveOp::allgather;
  c.algorithm = net::CollectiveAlgorithm::ring;
  c.ranks = stage_gpus_;
  return memoised_collective(reduce_scatter ? 4 : 3, std::move(c), bytes);
}

core::Seconds IterationCostModel::tp_allreduce(double bytes) {
  net::CollectiveSpec c;
  c.op = net::CollectiveOp::allreduce;
  c.algorithm = net::CollectiveAlgorithm::ring;
  c.ranks.assign(stage_gpus_.begin(), stage_gpus_.begin() + tp_);
  return memoised_collective(2, std::move(c), bytes);
}

// `c` at `bytes` rounded to 1/32 of an octave, simulated once per (kind, bucket).
core::Seconds IterationCostModel::memoised_collective(int kind, net::CollectiveSpec c, double bytes) {
  if (bytes <= 0) return 0;
  const auto key = std::make_tuple(kind, bucket(bytes), 0);
  if (auto it = collectives_.find(key); it != collectives_.end()) return it->second;
  c.bytes = rounded(bytes);
  const core::Seconds t = net::simulate_collective(topo_, c, *opt_.network, opt_.efficiency).time_s;
  collectives_.emplace(key, t);
  return t;
}

}  // namespace k3::serve
