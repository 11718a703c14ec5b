#include "sweep/serve_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "core/rng.hpp"
#include "core/wall_clock.hpp"
#include "results/serve_output.hpp"
#include "sim/serve/kv_capacity.hpp"
#include "sim/serve/request_stream.hpp"
#include "sim/serve/serving_cost.hpp"
#include "sim/serve/serving_simulator.hpp"

namespace k3::sweep {

using core::InputError;

namespace {

// Attention TP inside a node; DP attention (TP 1) is what DeepSeek and SGLang deploy, larger TP shortens a
// decode step at small batches.
constexpr int kAttentionTp[] = {1, 2, 4, 8};
// Simulated together at a size, whatever the thread count, so that the same candidates are simulated on any
// machine.
constexpr std::size_t kRound = 4;

enum class Role { prefill, decode, colocated };

struct ShapeBound {
  serve::InstanceSpec instance;
  std::string rule;  // empty: it fits
  std::string why;
  double prefill_tokens_per_s = 0;  // one instance at its largest prefill batch
  double decode_tokens_per_s = 0;   // one instance at its largest decode batch
  double min_tpot_s = 0;
};

std::vector<int> node_ladder(int last) {
  std::vector<int> out;
  for (int n = 1; n <= std::min(last, 16); ++n) out.push_back(n);
  for (int p = 16; p <= last; p *= 2) {
    for (const int n : {p + p / 2, 2 * p}) {
      if (n <= last) out.push_back(n);
    }
  }
  return out;
}

double redundant_per_gpu(const serve::InstanceSpec& is, int gpus_per_node) {
  return static_cast<double>(is.redundant_experts) / (is.nodes * gpus_per_node);
}

ServeDemand stream_demand(const serve::ServeSpec& spec) {
  core::Rng rng(spec.seed);
  const auto requests = serve::open_loop_requests(spec.workload, rng);
  ServeDemand d;
  d.requests = requests.size();
  double prompt = 0, computed = 0, output = 0;
  for (const auto& r : requests) {
    prompt += r.prompt_tokens;
    computed += r.prompt_tokens - std::min(r.prompt_tokens - 1, std::floor(r.prompt_tokens * spec.workload.prefix_cache_hit));
    output += r.output_tokens;
  }
  const double n = std::max<double>(1, static_cast<double>(requests.size()));
  d.mean_prompt_tokens = prompt / n;
  d.mean_output_tokens = output / n;
  d.prompt_tokens_per_s = computed / spec.workload.duration_s;
  d.output_tokens_per_s = output / spec.workload.duration_s;
  return d;
}

// What one instance of `shape` can carry, or the rule it breaks.
class ShapeBounds {
 public:
  ShapeBounds(const input::ServeInputs& in, const serve::ServeSpec& spec, const ServeDemand& demand)
      : in_(in), spec_(spec), demand_(demand), cost_(serve::make_serving_cost(*in.inputs.topology, in.inputs.profile_or_null(), spec)) {
    core::Rng rng(spec.seed);
    for (const auto& r : serve::open_loop_requests(spec.workload, rng)) {
      longest_prompt_ = std::max(longest_prompt_, r.prompt_tokens);
      longest_sequence_ = std::max(longest_sequence_, r.prompt_tokens + r.output_tokens);
      shortest_prompt_ = std::min(shortest_prompt_, r.prompt_tokens);
    }
  }

  const ShapeBound& get(Role role, int nodes, int tp) {
    const auto key = std::tuple{static_cast<int>(role), nodes, tp};
    if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
    return memo_.emplace(key, compute(role, nodes, tp)).first->second;
  }

 private:
  ShapeBound compute(Role role, int nodes, int tp) const {
    const auto& topo = *in_.inputs.topology;
    const int gpn = topo.gpus_per_node();
    const auto& base = spec_.deployment;
    ShapeBound b;
    b.instance.nodes = nodes;
    b.instance.attention_dp = nodes * gpn / tp;
    const auto& like = role == Role::decode ? base.decode : base.prefill;
    b.instance.redundant_experts = static_cast<int>(std::lround(redundant_per_gpu(like, gpn) * nodes * gpn));
    const bool mtp = spec_.workload.mtp_draft_tokens > 0;
    const auto o = serve::kv_capacity_options(spec_, b.instance, role == Role::prefill, nodes * gpn,
                                              topo.gpu_type().hbm_bytes, mtp && role != Role::prefill);
    serve::RankKvCapacity kv;
    try {
      kv = serve::rank_kv_capacity(in_.inputs.model, o, {spec_.source, "deployment", 0});
    } catch (const InputError& e) {
      b.rule = "weights";
      b.why = e.problem();
      return b;
    }
    const double largest = role == Role::prefill ? longest_prompt_ : longest_sequence_;
    if (kv.sequence_bytes(largest) > kv.free_bytes_per_gpu) {
      b.rule = "request";
      b.why = fmt::format("a {:.0f}-token request needs {:.2f} GB per GPU of KV; a rank has {:.2f} GB", largest,
                          kv.sequence_bytes(largest) / 1e9, kv.free_bytes_per_gpu / 1e9);
      return b;
    }
    serve::ServeSpec s = spec_;
    s.deployment.prefill = s.deployment.decode = b.instance;
    const serve::ServingInputs si = cost_->inputs(in_.inputs.model, *in_.inputs.topology);
    if (role != Role::decode) {
      b.prefill_tokens_per_s = serve::prefill_rate(si, s, spec_.scheduler.prefill_token_budget, demand_.mean_prompt_tokens)
                                   .tokens_per_s_per_node * nodes;
    }
    if (role != Role::prefill) {
      // A sequence reserves its whole prompt and output at admission; its context averages the prompt and half
      // the output over its decode steps.
      const double resident = demand_.mean_prompt_tokens + demand_.mean_output_tokens;
      const double by_kv = std::floor(kv.free_bytes_per_gpu / kv.sequence_bytes(resident));
      const double batch = std::max(1.0, std::min<double>(spec_.scheduler.max_running_per_rank, by_kv));
      const double context = demand_.mean_prompt_tokens + demand_.mean_output_tokens / 2;
      b.decode_tokens_per_s = serve::decode_rate(si, s, batch, context).tokens_per_s_per_node * nodes;
      b.min_tpot_s = serve::decode_rate(si, s, 1, shortest_prompt_).iteration.total /
                     serve::expected_tokens_per_step(spec_.workload);
    }
    return b;
  }

  const input::ServeInputs& in_;
  const serve::ServeSpec& spec_;
  const ServeDemand& demand_;
  std::unique_ptr<serve::ServingCost> cost_;
  double longest_prompt_ = 0, longest_sequence_ = 0, shortest_prompt_ = std::numeric_limits<double>::max();
  std::map<std::tuple<int, int, int>, ShapeBound> memo_;
};

struct Refusal {
  std::string rule;
  std::string why;
};

// Margins and the first rule the candidate breaks (empty when it survives).
Refusal bound_candidate(ServeCandidate& c, const ShapeBound& prefill, int prefill_count, const ShapeBound& decode,
                        int decode_count, const ServeDemand& demand, const ServeGoal& goal) {
  for (const auto* b : {&prefill, &decode}) {
    if (!b->rule.empty()) return {b->rule, b->why};
  }
  c.prefill_capacity_margin = prefill_count * prefill.prefill_tokens_per_s / demand.prompt_tokens_per_s;
  c.decode_capacity_margin = decode_count * decode.decode_tokens_per_s / demand.output_tokens_per_s;
  c.min_tpot_s = decode.min_tpot_s;
  if (c.min_tpot_s > goal.tpot_s) {
    return {"tpot floor", fmt::format("one sequence per rank decodes at {:.1f} ms per token", 1e3 * c.min_tpot_s)};
  }
  if (std::min(c.prefill_capacity_margin, c.decode_capacity_margin) < 1) {
    return {"capacity", fmt::format("prefill carries {:.2f}x, decode {:.2f}x the stream's tokens/s",
                                    c.prefill_capacity_margin, c.decode_capacity_margin)};
  }
  return {};
}

double headroom(const serve::ServeResult& r, const ServeGoal& g) {
  return std::max(r.ttft.p99 / g.ttft_s, r.tpot.p99 / g.tpot_s);
}

bool better(const ServeCandidate& a, const ServeCandidate& b, const ServeGoal& g) {
  if (a.meets != b.meets) return a.meets;
  if (a.result.has_value() != b.result.has_value()) return a.result.has_value();
  if (!a.result) return false;
  if (a.result->goodput_requests_per_s != b.result->goodput_requests_per_s)
    return a.result->goodput_requests_per_s > b.result->goodput_requests_per_s;
  return headroom(*a.result, g) < headroom(*b.result, g);
}

void check_goal(const ServeGoal& g) {
  const auto positive = [](double v, const char* flag, const char* allowed) {
    if (!(v > 0) || !std::isfinite(v)) throw InputError({flag, "", 0}, fmt::format("{}", v), allowed);
  };
  positive(g.rate_per_s, "--serve", "a positive arrival rate in requests/s, e.g. 40");
  positive(g.ttft_s, "--ttft", "a positive time to first token in seconds, e.g. 2");
  positive(g.tpot_s, "--tpot", "a positive time per output token in seconds, e.g. 0.05");
  if (!(g.attainment > 0 && g.attainment <= 1))
    throw InputError({"--attainment", "", 0}, fmt::format("{}", g.attainment), "a share of requests in (0, 1], e.g. 0.9");
}

}  // namespace

std::string deployment_text(const serve::DeploymentSpec& d, int gpus_per_node) {
  const auto shape = [gpus_per_node](const serve::InstanceSpec& is) {
    return fmt::format("{} node{} tp{}", is.nodes, is.nodes == 1 ? "" : "s", is.nodes * gpus_per_node / is.attention_dp);
  };
  if (d.kind == serve::DeploymentKind::colocated) return fmt::format("{} x colocated {}", d.prefill_instances, shape(d.prefill));
  return fmt::format("{} x prefill {} + {} x decode {}", d.prefill_instances, shape(d.prefill), d.decode_instances,
                     shape(d.decode));
}

serve::ServeSpec candidate_spec(const serve::ServeSpec& base, const serve::DeploymentSpec& deployment, const ServeGoal& goal) {
  serve::ServeSpec s = base;
  s.deployment = deployment;
  s.workload.arrival = {};
  s.workload.arrival.kind = serve::ArrivalSpec::Kind::poisson;
  s.workload.arrival.rate_per_s = goal.rate_per_s;
  s.slo = {goal.ttft_s, goal.tpot_s};
  return s;
}

ServePlanResult plan_serving(const ServePlanOptions& options, const ResolveServeOnNodes& resolve) {
  check_goal(options.goal);
  ServePlanResult out;
  out.goal = options.goal;
  const auto first = resolve(0);
  out.gpus_per_node = first.inputs.topology->gpus_per_node();
  const int gpn = out.gpus_per_node;
  out.demand = stream_demand(candidate_spec(first.spec, first.spec.deployment, options.goal));
  const int last = static_cast<int>(std::max<std::int64_t>(1, options.max_gpus / gpn));
  for (const int nodes : node_ladder(last)) {
    const double start = core::wall_clock_s();
    const auto in = resolve(nodes);
    const serve::ServeSpec base = candidate_spec(in.spec, in.spec.deployment, options.goal);
    ShapeBounds bounds(in, base, out.demand);
    ServeSizeTried tried;
    tried.nodes = nodes;
    std::vector<ServeCandidate> survivors;
    const auto consider = [&](serve::DeploymentSpec d, const ShapeBound& p, int pc, const ShapeBound& q, int qc) {
      ++tried.candidates;
      ServeCandidate c;
      c.deployment = d;
      c.nodes = nodes;
      const auto refusal = bound_candidate(c, p, pc, q, qc, out.demand, options.goal);
      if (refusal.rule.empty()) {
        survivors.push_back(std::move(c));
        return;
      }
      auto& count = tried.pruned[refusal.rule];
      if (count.candidates++ == 0) count.example = deployment_text(d, gpn) + ": " + refusal.why;
    };
    for (int ps = 1; ps <= nodes; ps *= 2) {
      for (const int ptp : kAttentionTp) {
        if (gpn % ptp != 0) continue;
        // Colocated: instances of one shape fill the nodes.
        if (nodes % ps == 0) {
          const auto& b = bounds.get(Role::colocated, ps, ptp);
          serve::DeploymentSpec d;
          d.kind = serve::DeploymentKind::colocated;
          d.prefill = d.decode = b.instance;
          d.prefill_instances = nodes / ps;
          d.decode_instances = 0;
          consider(d, b, d.prefill_instances, b, d.prefill_instances);
        }
        for (int pc = 1; pc * ps < nodes; ++pc) {
          const int left = nodes - pc * ps;
          for (int ds = 1; ds <= left; ds *= 2) {
            if (left % ds != 0) continue;
            for (const int dtp : kAttentionTp) {
              if (gpn % dtp != 0) continue;
              const auto& p = bounds.get(Role::prefill, ps, ptp);
              const auto& q = bounds.get(Role::decode, ds, dtp);
              serve::DeploymentSpec d;
              d.kind = serve::DeploymentKind::disaggregated;
              d.prefill = p.instance;
              d.decode = q.instance;
              d.prefill_instances = pc;
              d.decode_instances = left / ds;
              consider(d, p, pc, q, d.decode_instances);
            }
          }
        }
      }
    }
    // Largest margin first; the enumeration order breaks ties.
    std::stable_sort(survivors.begin(), survivors.end(), [](const ServeCandidate& a, const ServeCandidate& b) {
      return std::min(a.prefill_capacity_margin, a.decode_capacity_margin) >
             std::min(b.prefill_capacity_margin, b.decode_capacity_margin);
    });
    const std::size_t cap = options.exhaustive ? survivors.size() : std::min<std::size_t>(survivors.size(), options.max_per_size);
    std::size_t done = 0;
    while (done < cap && (options.exhaustive || !tried.meets)) {
      const std::size_t end = std::min(cap, done + kRound);
      core::parallel_for(end - done, options.threads, [&](std::size_t i) {
        auto& c = survivors[done + i];
        try {
          c.result = serve::simulate_serving(in.inputs.model, *in.inputs.topology, in.inputs.profile_or_null(),
                                             candidate_spec(in.spec, c.deployment, options.goal));
          c.meets = c.result->slo_attainment >= options.goal.attainment;
        } catch (const InputError& e) {
          c.why_not = e.problem();
        }
      });
      for (std::size_t i = done; i < end; ++i) {
        const auto& c = survivors[i];
        if (!c.result) continue;
        tried.best_attainment = std::max(tried.best_attainment.value_or(0.0), c.result->slo_attainment);
        tried.meets = tried.meets || c.meets;
      }
      done = end;
    }
    tried.survivors = survivors.size();
    tried.simulated = done;
    tried.wall_s = core::wall_clock_s() - start;
    if (options.progress != nullptr) {
      std::fprintf(options.progress, "  %4d nodes: %6zu deployments, %3zu simulated in %6.1f s: %s\n", nodes, tried.candidates,
                   tried.simulated, tried.wall_s,
                   tried.best_attainment ? fmt::format("best SLO attainment {:.1f}%{}", 100 * *tried.best_attainment,
                                                       tried.meets ? ", meets the goal" : "").c_str()
                                         : "none can meet the goal");
      std::fflush(options.progress);
    }
    out.tried.push_back(std::move(tried));
    if (out.tried.back().meets) {
      survivors.resize(done);
      std::stable_sort(survivors.begin(), survivors.end(),
                       [&](const ServeCandidate& a, const ServeCandidate& b) { return better(a, b, options.goal); });
      out.ranked = std::move(survivors);
      out.chosen_nodes = nodes;
      break;
    }
  }
  return out;
}

nlohmann::json serve_plan_to_json(const ServePlanResult& r) {
  nlohmann::json tried = nlohmann::json::array();
  for (const auto& t : r.tried) {
    nlohmann::json pruned = nlohmann::json::object();
    for (const auto& [rule, c] : t.pruned) pruned[rule] = {{"candidates", c.candidates}, {"example", c.example}};
    nlohmann::json row{{"nodes", t.nodes},   {"gpus", t.nodes * r.gpus_per_node}, {"candidates", t.candidates},
                       {"survivors", t.survivors}, {"simulated", t.simulated}, {"pruned", pruned}, {"meets", t.meets}, {"wall_s", t.wall_s}};
    if (t.best_attainment) row["best_slo_attainment"] = *t.best_attainment;
    tried.push_back(row);
  }
  const auto instance = [&](const serve::InstanceSpec& is, int count) {
    return nlohmann::json{{"nodes", is.nodes},
                          {"attention_dp", is.attention_dp},
                          {"attention_tp", is.nodes * r.gpus_per_node / is.attention_dp},
                          {"redundant_experts", is.redundant_experts},
                          {"instances", count}};
  };
  nlohmann::json ranked = nlohmann::json::array();
  for (const auto& c : r.ranked) {
    const bool colocated = c.deployment.kind == serve::DeploymentKind::colocated;
    nlohmann::json d{{"kind", colocated ? "colocated" : "disaggregated"}, {"text", deployment_text(c.deployment, r.gpus_per_node)}};
    if (colocated) {
      d["instance"] = instance(c.deployment.prefill, c.deployment.prefill_instances);
    } else {
      d["prefill"] = instance(c.deployment.prefill, c.deployment.prefill_instances);
      d["decode"] = instance(c.deployment.decode, c.deployment.decode_instances);
    }
    nlohmann::json row{{"deployment", d},
                       {"nodes", c.nodes},
                       {"prefill_capacity_margin", c.prefill_capacity_margin},
                       {"decode_capacity_margin", c.decode_capacity_margin},
                       {"min_tpot_s", c.min_tpot_s},
                       {"meets", c.meets}};
    if (c.result) row["result"] = results::serve_to_json(*c.result);
    if (!c.why_not.empty()) row["why_not"] = c.why_not;
    ranked.push_back(row);
  }
  nlohmann::json j{{"goal",
                    {{"rate_per_s", r.goal.rate_per_s},
                     {"ttft_s", r.goal.ttft_s},
                     {"tpot_s", r.goal.tpot_s},
                     {"attainment", r.goal.attainment}}},
                   {"demand",
                    {{"requests", r.demand.requests},
                     {"prompt_tokens_per_s", r.demand.prompt_tokens_per_s},
                     {"output_tokens_per_s", r.demand.output_tokens_per_s},
                     {"mean_prompt_tokens", r.demand.mean_prompt_tokens},
                     {"mean_output_tokens", r.demand.mean_output_tokens}}},
                   {"gpus_per_node", r.gpus_per_node},
                   {"tried", tried},
                   {"ranked", ranked}};
  j["chosen_nodes"] = r.chosen_nodes ? nlohmann::json(*r.chosen_nodes) : nlohmann::json(nullptr);
  return j;
}

}  // namespace k3::sweep
