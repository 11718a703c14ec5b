#include "sim/serve/serving_simulator.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "core/error.hpp"
#include "sim/engine/simulator.hpp"
#include "sim/serve/instance_state.hpp"
#include "sim/serve/request_stream.hpp"

namespace k3::serve {

using core::SimTime;

namespace {

// Iteration ends settle before arrivals at the same instant, so a request never sees a half-finished step.
constexpr engine::EventPriority kIterationEnd = 0, kTransferEnd = 1, kArrival = 2;

class ServingRun {
 public:
  ServingRun(const ServingInputs& in, const ServeSpec& spec) : in_(in), spec_(spec), rng_(spec.seed) {
    build_instances();
    tokens_per_step_ = expected_tokens_per_step(spec_.workload);
  }

  ServeResult run() {
    const auto& w = spec_.workload;
    if (w.arrival.kind == ArrivalSpec::Kind::closed_loop) {
      for (int i = 0; i < w.arrival.concurrency; ++i) spawn(0.0, draw_length(w.prompt, rng_), draw_length(w.output, rng_));
    } else {
      for (const auto& r : open_loop_requests(w, rng_)) spawn(r.arrival_s, r.prompt_tokens, r.output_tokens);
    }
    sim_.run();
    return summarise();
  }

 private:
  void build_instances() {
    const auto& d = spec_.deployment;
    const auto& topo = *in_.topology;
    const int gpn = topo.gpus_per_node();
    const bool colocated = d.kind == DeploymentKind::colocated;
    int next_node = 0;
    auto make = [&](const InstanceSpec& is, bool prefill, bool decode, const RankKvCapacity* kv) {
      Instance inst;
      inst.prefill = prefill, inst.decode = decode, inst.kv = kv;
      for (int g = 0; g < is.nodes * gpn; ++g) inst.gpus.push_back(static_cast<topo::GpuId>(next_node * gpn + g));
      next_node += is.nodes;
      inst.ranks.resize(static_cast<std::size_t>(is.attention_dp));
      const InstanceCostOptions o = instance_cost_options(spec_, in_, is, inst.gpus, decode);
      try {
        inst.cost = std::make_unique<IterationCostModel>(*in_.model, topo, *in_.cost, o);
      } catch (const core::InputError& e) {
        throw core::InputError({spec_.source, e.where().key, 0}, e.problem(), e.allowed());
      }
      instances_.push_back(std::move(inst));
    };
    const int needed = colocated ? d.prefill_instances * d.prefill.nodes
                                 : d.prefill_instances * d.prefill.nodes + d.decode_instances * d.decode.nodes;
    if (needed > static_cast<int>(topo.node_count()))
      throw core::InputError({spec_.source, "deployment", 0},
                             fmt::format("the deployment needs {} nodes; topology '{}' has {}", needed, topo.name(),
                                         topo.node_count()),
                             fmt::format("at most {} nodes in all (or cluster.nodes larger)", topo.node_count()));
    auto capacity = [&](const InstanceSpec& is, bool prefill, bool mtp) {
      return rank_kv_capacity(*in_.model,
                              kv_capacity_options(spec_, is, prefill, is.nodes * gpn, topo.gpu_type().hbm_bytes, mtp),
                              {spec_.source, "deployment", 0});
    };
    const bool mtp = spec_.workload.mtp_draft_tokens > 0;
    prefill_kv_ = capacity(d.prefill, true, mtp && colocated);
    decode_kv_ = colocated ? prefill_kv_ : capacity(d.decode, false, mtp);
    for (int i = 0; i < d.prefill_instances; ++i) make(d.prefill, true, colocated, &prefill_kv_);
    if (!colocated)
      for (int i = 0; i < d.decode_instances; ++i) make(d.decode, false, true, &decode_kv_);
  }

  void spawn(double at, double prompt, double output) {
    const int id = static_cast<int>(reqs_.size());
    Req q;
    q.r = {at, prompt, output};
    q.done = std::floor(prompt * spec_.workload.prefix_cache_hit);
    if (q.done >= prompt) q.done = prompt - 1;  // the last token is always computed: it yields the logits
    const bool colocated = spec_.deployment.kind == DeploymentKind::colocated;
    q.prefill_bytes = prefill_kv_.sequence_bytes(colocated ? prompt + output : prompt);
    q.decode_bytes = decode_kv_.sequence_bytes(prompt + output);
    check_fits(q, id);
    reqs_.push_back(q);
    sim_.schedule_at(SimTime::from_seconds(at), [this, id] { arrive(id); }, kArrival);
  }

  void check_fits(const Req& q, int id) const {
    for (const auto* kv : {&prefill_kv_, &decode_kv_}) {
      const core::Bytes need = kv == &prefill_kv_ ? q.prefill_bytes : q.decode_bytes;
      if (need <= kv->free_bytes_per_gpu) continue;
      throw core::InputError(
          {spec_.source, "workload", 0},
          fmt::format("request {} ({:.0f} prompt + {:.0f} output tokens) needs {:.2f} GB of KV cache and state per GPU; "
                      "a {} rank has {:.2f} GB per GPU after {:.1f} GB of weights and the reserve",
                      id, q.r.prompt_tokens, q.r.output_tokens, need / 1e9, kv == &prefill_kv_ ? "prefill" : "decode",
                      kv->free_bytes_per_gpu / 1e9, kv->weight_bytes_per_gpu / 1e9),
          "shorter requests (workload.prompt_tokens / output_tokens), more nodes per instance, attention TP (a smaller "
          "attention_dp) or a smaller "
          "scheduler.memory_reserve_fraction");
    }
  }

  double now() const { return sim_.now().seconds(); }

  void count_in_system(int delta) {
    in_system_integral_ += in_system_ * (now() - last_change_);
    last_change_ = now();
    in_system_ += delta;
  }

  template <typename Pick>
  static int least(const std::vector<int>& candidates, Pick load) {
    int best = candidates.front();
    for (int c : candidates)
      if (load(c) < load(best)) best = c;
    return best;
  }

  static int least_loaded_rank(const Instance& inst, bool by_tokens) {
    std::size_t best = 0;
    for (std::size_t r = 1; r < inst.ranks.size(); ++r) {
      const auto& a = inst.ranks[r];
      const auto& b = inst.ranks[best];
      if ((by_tokens ? a.queued_tokens : a.load()) < (by_tokens ? b.queued_tokens : b.load())) best = r;
    }
    return static_cast<int>(best);
  }

  void arrive(int id) {
    count_in_system(+1);
    std::vector<int> prefillers;
    for (std::size_t i = 0; i < instances_.size(); ++i)
      if (instances_[i].prefill) prefillers.push_back(static_cast<int>(i));
    const int i = least(prefillers, [&](int c) {
      double t = 0;
      for (const auto& r : instances_[static_cast<std::size_t>(c)].ranks) t += r.queued_tokens;
      return t;
    });
    auto& inst = instances_[static_cast<std::size_t>(i)];
    const int rank = least_loaded_rank(inst, true);
    auto& q = reqs_[static_cast<std::size_t>(id)];
    q.prefill_instance = i, q.prefill_rank = rank;
    inst.ranks[static_cast<std::size_t>(rank)].pending.push_back(id);
    inst.ranks[static_cast<std::size_t>(rank)].queued_tokens += q.r.prompt_tokens - q.done;
    kick(i);
  }

  void kick(int i) {
    if (!instances_[static_cast<std::size_t>(i)].busy) start_iteration(i);
  }

  long steps_needed(const Req& q) const {
    return static_cast<long>(std::ceil((q.r.output_tokens - 1) / tokens_per_step_ - 1e-9));
  }

  void start_running(Instance& inst, Rank& rank, int id) {
    auto& q = reqs_[static_cast<std::size_t>(id)];
    q.start_step = inst.step;
    q.decode_start = now();
    q.finish_step = inst.step + steps_needed(q);
    rank.running.push({q.finish_step, id});
    rank.context_sum += q.r.prompt_tokens + 1;
  }

  void start_iteration(int i) {
    auto& inst = instances_[static_cast<std::size_t>(i)];
    const auto& sch = spec_.scheduler;
    const bool colocated = inst.prefill && inst.decode;
    const double q = inst.cost->tokens_per_step();
    BatchShape shape;
    inst.chunks.clear();
    inst.decoding.assign(inst.ranks.size(), 0);
    for (std::size_t r = 0; r < inst.ranks.size(); ++r) {
      Rank& rank = inst.ranks[r];
      // Admit waiting requests while their KV fits (and, where they will decode here, the batch has room).
      while (!rank.pending.empty()) {
        const int id = rank.pending.front();
        const auto& rq = reqs_[static_cast<std::size_t>(id)];
        const core::Bytes need = inst.prefill ? rq.prefill_bytes : rq.decode_bytes;
        const auto in_batch = rank.running.size() + (colocated ? rank.prefill.size() : 0);
        if (rank.kv_used + need > inst.kv->free_bytes_per_gpu) break;
        if (inst.decode && in_batch >= static_cast<std::size_t>(sch.max_running_per_rank)) break;
        rank.kv_used += need;
        rank.pending.pop_front();
        if (inst.prefill) {
          rank.prefill.push_back(id);
        } else {
          start_running(inst, rank, id);
        }
      }
      double tokens = 0, pairs = 0, last = 0;
      for (int id : rank.prefill) {
        const double budget = sch.prefill_token_budget - tokens;
        if (budget <= 0) break;
        const auto& rq = reqs_[static_cast<std::size_t>(id)];
        const double chunk = std::min(budget, rq.r.prompt_tokens - rq.done);
        pairs += chunk * rq.done + chunk * chunk / 2;
        tokens += chunk;
        if (rq.done + chunk >= rq.r.prompt_tokens) last += 1;
        inst.chunks.push_back({static_cast<int>(r), id, chunk});
      }
      const auto decoding = static_cast<double>(rank.running.size());
      inst.decoding[r] = static_cast<int>(rank.running.size());
      shape.prefill_tokens = std::max(shape.prefill_tokens, tokens);
      shape.prefill_pairs = std::max(shape.prefill_pairs, pairs);
      shape.prefill_last_chunks = std::max(shape.prefill_last_chunks, last);
      shape.decode_sequences = std::max(shape.decode_sequences, decoding);
      shape.decode_context = std::max(shape.decode_context, rank.context_sum);
      shape.instance_tokens += tokens + decoding * q;
    }
    if (shape.instance_tokens <= 0) return;  // idle until something arrives
    if (inst.decode) sample_kv();
    const IterationTime t = inst.cost->time(shape);
    inst.pipeline_drain_s = std::max(0.0, t.latency - t.total);
    record_phase(inst, shape, t);
    inst.busy = true;
    sim_.schedule_after(SimTime::from_seconds(t.total), [this, i] { end_iteration(i); }, kIterationEnd);
  }

  // Per phase: iteration times, and the work per rank (prefill tokens of the busiest rank, or the mean decode
  // batch per rank).
  void record_phase(const Instance& inst, const BatchShape& s, const IterationTime& t) {
    const bool p = s.prefill_tokens > 0, d = s.decode_sequences > 0;
    const std::string phase = p && d ? "mixed" : p ? "prefill" : "decode";
    double seqs = 0;
    for (int n : inst.decoding) seqs += n;
    const double per_rank = seqs / static_cast<double>(inst.ranks.size());
    auto& ph = phases_[phase];
    ph.phase = phase;
    ph.iterations += 1;
    ph.mean_iteration_s += t.total;
    ph.mean_tokens_per_rank += p ? s.prefill_tokens : per_rank;
    ph.mean_breakdown.total += t.total;
    ph.mean_breakdown.attention += t.attention;
    ph.mean_breakdown.experts += t.experts;
    ph.mean_breakdown.other_compute += t.other_compute;
    ph.mean_breakdown.communication += t.communication;
    ph.mean_breakdown.host_weights += t.host_weights;
    if (d) {
      decode_batch_weighted_ += per_rank * t.total;
      decode_time_ += t.total;
    }
  }

  bool in_window(double t) const {
    return t >= spec_.workload.warmup_s && t < spec_.workload.duration_s;
  }

  void end_iteration(int i) {
    auto& inst = instances_[static_cast<std::size_t>(i)];
    inst.step += 1;
    const double t = now();
    if (inst.decode) {
      for (std::size_t r = 0; r < inst.ranks.size(); ++r) {
        Rank& rank = inst.ranks[r];
        const double produced = inst.decoding[r] * tokens_per_step_;
        rank.context_sum += produced;
        if (in_window(t)) output_tokens_ += produced;
        while (!rank.running.empty() && rank.running.top().finish_step <= inst.step) {
          const int id = rank.running.top().id;
          rank.running.pop();
          auto& q = reqs_[static_cast<std::size_t>(id)];
          const double steps = static_cast<double>(q.finish_step - q.start_step);
          rank.context_sum -= q.r.prompt_tokens + 1 + steps * tokens_per_step_;
          rank.kv_used -= inst.prefill ? q.prefill_bytes : q.decode_bytes;
          // The last step's drafts beyond the request's length were not output.
          if (in_window(t)) output_tokens_ -= steps * tokens_per_step_ - (q.r.output_tokens - 1);
          finish(id);
        }
      }
    }
    for (const Chunk& c : inst.chunks) {
      auto& q = reqs_[static_cast<std::size_t>(c.id)];
      Rank& rank = inst.ranks[static_cast<std::size_t>(c.rank)];
      q.done += c.tokens;
      rank.queued_tokens -= c.tokens;
      if (q.done < q.r.prompt_tokens) continue;
      rank.prefill.erase(std::find(rank.prefill.begin(), rank.prefill.end(), c.id));
      // Through a pipeline the prompt's last chunk still has the later stages to pass; the next batch need not wait.
      if (inst.pipeline_drain_s > 0) {
        sim_.schedule_after(SimTime::from_seconds(inst.pipeline_drain_s),
                            [this, i, r = c.rank, id = c.id] { prefilled(i, r, id); }, kIterationEnd);
      } else {
        prefilled(i, c.rank, c.id);
      }
    }
    inst.busy = false;
    start_iteration(i);
  }

  // The prompt's last token is computed: its first token is out.
  void prefilled(int i, int r, int id) {
    auto& inst = instances_[static_cast<std::size_t>(i)];
    Rank& rank = inst.ranks[static_cast<std::size_t>(r)];
    auto& q = reqs_[static_cast<std::size_t>(id)];
    const double t = now();
    q.first_token = t;
    if (in_window(t)) input_tokens_ += q.r.prompt_tokens, output_tokens_ += 1;
    if (q.r.output_tokens <= 1) {
      rank.kv_used -= q.prefill_bytes;
      finish(id);
    } else if (inst.decode) {
      start_running(inst, rank, id);
    } else {
      sim_.schedule_after(SimTime::from_seconds(kv_transfer_s(q)), [this, id] { transferred(id); }, kTransferEnd);
    }
  }

  // The prompt's KV (and state) from a prefill GPU to a decode GPU over RDMA, each GPU of a TP rank sending
  // its share at once; alone on the network.
  core::Seconds kv_transfer_s(const Req& q) {
    const int b = static_cast<int>(std::lround(std::log2(std::max(1.0, q.prefill_bytes)) * 32));
    if (auto it = transfers_.find(b); it != transfers_.end()) return it->second;
    const Instance* decode = nullptr;
    for (const auto& inst : instances_)
      if (inst.decode) { decode = &inst; break; }
    net::CollectiveSpec c;
    c.op = net::CollectiveOp::sendrecv;
    c.algorithm = net::CollectiveAlgorithm::flat;
    c.ranks = {instances_.front().gpus.front(), decode->gpus.front()};
    c.bytes = std::exp2(b / 32.0);
    const core::Seconds s = net::simulate_collective(*in_.topology, c, *spec_.network, in_.efficiency).time_s;
    transfers_.emplace(b, s);
    return s;
  }

  void transferred(int id) {
    auto& q = reqs_[static_cast<std::size_t>(id)];
    instances_[static_cast<std::size_t>(q.prefill_instance)].ranks[static_cast<std::size_t>(q.prefill_rank)].kv_used -=
        q.prefill_bytes;
    kick(q.prefill_instance);
    std::vector<int> decoders;
    for (std::size_t i = 0; i < instances_.size(); ++i)
      if (instances_[i].decode) decoders.push_back(static_cast<int>(i));
    const int i = least(decoders, [&](int c) {
      double l = 0;
      for (const auto& r : instances_[static_cast<std::size_t>(c)].ranks) l += r.load();
      return l;
    });
    auto& inst = instances_[static_cast<std::size_t>(i)];
    inst.ranks[static_cast<std::size_t>(least_loaded_rank(inst, false))].pending.push_back(id);
    kick(i);
  }

  void finish(int id) {
    auto& q = reqs_[static_cast<std::size_t>(id)];
    q.finish = now();
    count_in_system(-1);
    const auto& w = spec_.workload;
    if (w.arrival.kind == ArrivalSpec::Kind::closed_loop && now() < w.duration_s)
      spawn(now(), draw_length(w.prompt, rng_), draw_length(w.output, rng_));
  }

  void sample_kv() {
    core::Bytes used = 0, free = 0;
    for (const auto& inst : instances_) {
      if (!inst.decode) continue;
      for (const auto& r : inst.ranks) used += r.kv_used, free += inst.kv->free_bytes_per_gpu;
    }
    kv_.push_back({now(), free > 0 ? used / free : 0});
  }

  ServeResult summarise();

  const ServingInputs& in_;
  const ServeSpec& spec_;
  core::Rng rng_;
  engine::Simulator sim_;
  std::vector<Instance> instances_;
  std::vector<Req> reqs_;
  RankKvCapacity prefill_kv_, decode_kv_;
  double tokens_per_step_ = 1;
  double in_system_integral_ = 0, last_change_ = 0;
  long in_system_ = 0;
  double input_tokens_ = 0, output_tokens_ = 0;
  double decode_batch_weighted_ = 0, decode_time_ = 0;
  std::map<std::string, PhaseSummary> phases_;
  std::vector<KvSample> kv_;
  std::map<int, core::Seconds> transfers_;
};

ServeResult ServingRun::summarise() {
  const auto& w = spec_.workload;
  const auto& d = spec_.deployment;
  ServeResult out;
  out.name = spec_.name;
  out.model = in_.model->name;
  out.topology = in_.topology->name();
  const bool colocated = d.kind == DeploymentKind::colocated;
  out.deployment = colocated ? "colocated" : "disaggregated";
  out.prefill_nodes = d.prefill_instances * d.prefill.nodes;
  out.decode_nodes = colocated ? out.prefill_nodes : d.decode_instances * d.decode.nodes;
  out.nodes = colocated ? out.prefill_nodes : out.prefill_nodes + out.decode_nodes;
  out.gpus = out.nodes * in_.topology->gpus_per_node();
  out.window_s = w.duration_s - w.warmup_s;
  out.requests = static_cast<long>(reqs_.size());
  out.simulated_s = now();
  std::vector<double> ttft, tpot, decode_wait, e2e;
  long good = 0;
  double latency_sum = 0;
  for (const auto& q : reqs_) {
    latency_sum += q.finish - q.r.arrival_s;
    if (!in_window(q.r.arrival_s)) continue;
    out.measured += 1;
    // The client gets its first token from the decode side once that takes the request (SGLang's router streams the
    // decode server's response: sgl-project/sglang#22853), so a disaggregated TTFT holds the KV transfer and the wait
    // for decode space; colocated, decoding starts with the first token.
    const double streamed = q.r.output_tokens > 1 ? q.decode_start : q.first_token;
    ttft.push_back(streamed - q.r.arrival_s);
    e2e.push_back(q.finish - q.r.arrival_s);
    bool ok = ttft.back() <= spec_.slo.ttft_s;
    if (q.r.output_tokens > 1) {
      // Per token after the first, from the decode iteration that first runs the request: the wait before it is TTFT's.
      tpot.push_back((q.finish - q.decode_start) / (q.r.output_tokens - 1));
      decode_wait.push_back(q.decode_start - q.first_token);
      ok = ok && tpot.back() <= spec_.slo.tpot_s;
    }
    good += ok ? 1 : 0;
  }
  out.ttft = latency_stats(ttft);
  out.tpot = latency_stats(tpot);
  out.decode_wait = latency_stats(decode_wait);
  out.e2e = latency_stats(e2e);
  out.slo_ttft_s = spec_.slo.ttft_s;
  out.slo_tpot_s = spec_.slo.tpot_s;
  out.arrival_rate_per_s = static_cast<double>(out.measured) / out.window_s;
  out.goodput_requests_per_s = static_cast<double>(good) / out.window_s;
  out.slo_attainment = out.measured > 0 ? static_cast<double>(good) / static_cast<double>(out.measured) : 0;
  out.input_tokens_per_s = input_tokens_ / out.window_s;
  out.output_tokens_per_s = output_tokens_ / out.window_s;
  out.input_tokens_per_s_per_node = out.input_tokens_per_s / out.nodes;
  out.output_tokens_per_s_per_node = out.output_tokens_per_s / out.nodes;
  out.input_tokens_per_s_per_prefill_node = out.input_tokens_per_s / out.prefill_nodes;
  out.output_tokens_per_s_per_decode_node = out.output_tokens_per_s / out.decode_nodes;
  if (out.simulated_s > 0) {
    out.mean_in_system = in_system_integral_ / out.simulated_s;
    out.rate_times_latency = static_cast<double>(reqs_.size()) / out.simulated_s *
                             (reqs_.empty() ? 0 : latency_sum / static_cast<double>(reqs_.size()));
  }
  out.mean_decode_batch_per_rank = decode_time_ > 0 ? decode_batch_weighted_ / decode_time_ : 0;
  for (const auto& k : kv_) out.peak_kv_utilisation = std::max(out.peak_kv_utilisation, k.utilisation);
  out.kv = peak_per_interval(kv_, out.simulated_s, 200);
  for (auto& [name, ph] : phases_) {
    const double n = static_cast<double>(ph.iterations);
    ph.mean_iteration_s /= n;
    ph.mean_tokens_per_rank /= n;
    auto& b = ph.mean_breakdown;
    b.total /= n, b.attention /= n, b.experts /= n, b.other_compute /= n, b.communication /= n, b.host_weights /= n;
    out.phases.push_back(ph);
  }
  out.prefill_kv = prefill_kv_;
  out.decode_kv = decode_kv_;
  out.tokens_per_decode_step = tokens_per_step_;
  if (spec_.price_per_gpu_hour && out.output_tokens_per_s > 0)
    out.usd_per_million_output_tokens = *spec_.price_per_gpu_hour * out.gpus / 3600.0 / out.output_tokens_per_s * 1e6;
  for (const auto& inst : instances_) out.distinct_iteration_shapes += inst.cost->memo_size();
  return out;
}

}  // namespace

ServeResult simulate_serving(const ServingInputs& in, const ServeSpec& spec) {
  ServingRun run(in, spec);
  return run.run();
}

ServeResult simulate_serving(const model::ModelSpec& model, const topo::Topology& topology,
                             const cost::CalibrationProfile* profile, const ServeSpec& spec) {
  const auto c = make_serving_cost(topology, profile, spec);
  return simulate_serving(c->inputs(model, topology), spec);
}

}  // namespace k3::serve
