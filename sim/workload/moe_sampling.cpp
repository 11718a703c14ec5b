#include "sim/workload/moe_sampling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "core/threads.hpp"
#include "model/balancing/balancer_state.hpp"
#include "model/balancing/load_stats.hpp"
#include "model/routing/synthetic_router.hpp"
#include "core/rng.hpp"

namespace k3::workload {

namespace {

std::shared_ptr<TrafficMatrix> scaled(const TrafficMatrix& m, double f) {
  auto out = std::make_shared<TrafficMatrix>(m);
  for (auto& b : out->bytes) b *= f;
  for (auto& b : out->node_bytes) b *= f;
  return out;
}

// Replaces sampling noise by its expectation while keeping what the routing decides: every entry becomes
// the mean of its class (same node or other node as the sender), times the receiver's load (a GPU hosting
// hot experts receives proportionally more). Transfers of one class then finish together, which keeps the
// flow model's re-solves few; the per-GPU totals keep the imbalance.
TrafficMatrix expected_matrix(const TrafficMatrix& m, const std::vector<int>& node_pos,
                              const std::vector<double>& load, bool by_receiver) {
  const auto n = static_cast<std::size_t>(m.n);
  double sum[2] = {0, 0};
  double count[2] = {0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const int c = node_pos[i] == node_pos[j] ? 0 : 1;
      sum[c] += m.bytes[i * n + j];
      count[c] += 1;
    }
  }
  TrafficMatrix out = m;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const int c = node_pos[i] == node_pos[j] ? 0 : 1;
      const double mean = count[c] > 0 ? sum[c] / count[c] : 0;
      out.bytes[i * n + j] = mean * load[by_receiver ? j : i];
    }
  }
  // NIC bytes keep the sample's deduplication ratio (node copies per cross-node GPU copy), applied to the
  // expected GPU bytes, and stay between the largest and the sum of the bytes to the node's GPUs.
  const auto nodes = static_cast<std::size_t>(m.nodes);
  double node_sum = 0;
  for (double b : m.node_bytes) node_sum += b;
  const double dedup = sum[1] > 0 ? node_sum / sum[1] : 1.0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < nodes; ++k) {
      if (static_cast<std::size_t>(node_pos[i]) == k) continue;
      double total = 0, largest = 0;
      for (std::size_t j = 0; j < n; ++j) {
        if (static_cast<std::size_t>(node_pos[j]) != k) continue;
        total += out.bytes[i * n + j];
        largest = std::max(largest, out.bytes[i * n + j]);
      }
      out.node_bytes[i * nodes + k] = std::clamp(dedup * total, largest, total);
    }
  }
  return out;
}

// The EP group's nodes (numbered by first appearance) and the routed experts placed over it, checked.
struct GroupLayout {
  int ep = 0;
  std::vector<int> node_pos;  // of each group member
  int nodes = 0;
  routing::PlacementSpec placement_spec;
  std::optional<routing::ExpertPlacement> placement;
  routing::NodeLimit limit;
  routing::MoeRoutingShape shape;
};

// Node position of each group member, numbered by first appearance.
std::vector<int> node_positions(const MoeSamplingSpec& spec) {
  std::vector<int> node_pos(spec.group.size());
  std::map<parallel::GpuIndex, int> seen;
  for (std::size_t g = 0; g < spec.group.size(); ++g) {
    const parallel::GpuIndex node = spec.group[g] / static_cast<parallel::GpuIndex>(spec.gpus_per_node);
    node_pos[g] = seen.emplace(node, static_cast<int>(seen.size())).first->second;
  }
  return node_pos;
}

GroupLayout group_layout(const MoeSamplingSpec& spec) {
  const int ep = static_cast<int>(spec.group.size());
  GroupLayout out;
  out.ep = ep;
  out.node_pos = node_positions(spec);
  const auto& node_pos = out.node_pos;
  out.nodes = node_pos.empty() ? 0 : *std::max_element(node_pos.begin(), node_pos.end()) + 1;
  const int gpn = ep / out.nodes;
  out.placement_spec = {routing::PlacementKind::contiguous, ep, gpn, 0};
  routing::validate(out.placement_spec, spec.experts, "parallel.ep");
  out.placement.emplace(spec.experts, out.placement_spec);
  auto& limit = out.limit;
  if (spec.node_limit > 0) {
    limit.max_nodes = spec.node_limit;
    for (int e = 0; e < spec.experts; ++e) {
      limit.node_of_expert.push_back(node_pos[static_cast<std::size_t>(out.placement->copies(e).front())]);
    }
    limit.nodes = out.nodes;
    routing::validate(limit, spec.top_k, "communication.node_limit");
  }
  out.shape = {spec.model_name, spec.experts, spec.top_k, spec.width, spec.distinct_samples};
  routing::validate(out.shape, "model");
  return out;
}

RoutedTraffic route_over(const MoeSamplingSpec& spec, const GroupLayout& group) {
  const double per_copy = static_cast<double>(spec.width);
  const int ep = group.ep, nodes = group.nodes;
  const auto& node_pos = group.node_pos;
  const auto& placement = *group.placement;
  const auto& limit = group.limit;
  const auto n = static_cast<std::size_t>(ep);
  RoutedTraffic out;
  for (int i = 0; i < spec.distinct_samples; ++i) {
    routing::RouterConfig cfg;
    cfg.seed = core::Rng::derive(spec.seed, static_cast<std::uint64_t>(i));
    if (spec.balanced) {
      cfg.popularity_sigma = 0;  // independent, identically distributed scores: every expert equally likely
      cfg.topic_spread = 0;
    }
    const routing::SyntheticRouter router(spec.experts, cfg);
    const std::vector<float> bias(static_cast<std::size_t>(spec.experts), 0.0f);
    // Elements per sampled token copy; sample_moe scales them to the micro-batch and applies the bytes.
    TrafficMatrix elements{ep, std::vector<double>(n * n, 0.0), nodes,
                           std::vector<double>(n * static_cast<std::size_t>(nodes), 0.0)};
    TrafficMatrix back = elements;  // combine direction: expert GPU -> token GPU
    double gpu_copies = 0;
    double node_copies = 0;
    routing::RoutedBatch batch;
    routing::ScoreMatrix scores;
    std::vector<int> dest_gpus;
    for (int g = 0; g < ep; ++g) {
      router.score_batch(0, g, spec.sample_tokens, scores);
      if (spec.node_limit > 0) {
        routing::route_node_limited(scores, bias, spec.top_k, limit, batch);
      } else {
        routing::route_topk(scores, bias, spec.top_k, batch);
      }
      for (int t = 0; t < batch.tokens; ++t) {
        dest_gpus.clear();
        for (int slot = 0; slot < batch.top_k; ++slot) {
          const int d = placement.gpu_for(batch.expert(t, slot), t);
          if (std::find(dest_gpus.begin(), dest_gpus.end(), d) == dest_gpus.end()) dest_gpus.push_back(d);
          if (spec.copy_per_expert && d != g) {
            elements.bytes[static_cast<std::size_t>(g) * n + static_cast<std::size_t>(d)] += per_copy;
            back.bytes[static_cast<std::size_t>(d) * n + static_cast<std::size_t>(g)] += per_copy;
          }
        }
        gpu_copies += static_cast<double>(dest_gpus.size());
        std::map<int, int> per_node;  // destination node -> GPUs of it this token uses
        for (int d : dest_gpus) ++per_node[node_pos[static_cast<std::size_t>(d)]];
        node_copies += static_cast<double>(per_node.size());
        const int home = node_pos[static_cast<std::size_t>(g)];
        for (int d : dest_gpus) {
          if (d == g || spec.copy_per_expert) continue;  // own GPU: no transfer; per-expert copies counted above
          const int dn = node_pos[static_cast<std::size_t>(d)];
          elements.bytes[static_cast<std::size_t>(g) * n + static_cast<std::size_t>(d)] += per_copy;
          back.bytes[static_cast<std::size_t>(d) * n + static_cast<std::size_t>(g)] += per_copy;
          // The relay of node dn reduces the node's outputs and sends one copy back over the network: each
          // contributing GPU is charged its part of that copy. Outputs from the token's own node come back
          // over NVLink and cross no NIC.
          if (dn == home) continue;
          back.node_bytes[static_cast<std::size_t>(d) * static_cast<std::size_t>(nodes) +
                          static_cast<std::size_t>(home)] += per_copy / per_node[dn];
        }
        for (const auto& [node, count] : per_node) {
          if (node == home) continue;
          elements.node_bytes[static_cast<std::size_t>(g) * static_cast<std::size_t>(nodes) +
                              static_cast<std::size_t>(node)] += per_copy;
        }
      }
    }
    out.samples.push_back({std::move(elements), std::move(back), gpu_copies, node_copies});
  }
  return out;
}

}  // namespace

balancing::BalancerState read_balancer_state(const ExpertLoadSpec& load, const model::ModelSpec& spec) {
  auto state = balancing::load_balancer_state(load.state);
  if (!spec.has_moe()) {
    throw core::InputError(load.state_at, fmt::format("model {} has no routed experts to load", spec.name),
                           "expert_load.kind: uniform for a dense model");
  }
  if (state.experts != spec.moe.routed_experts || state.top_k != spec.moe.experts_per_token) {
    throw core::InputError(load.state_at,
                           fmt::format("{} holds top-{} of {} experts ({}); the scenario's model {} routes top-{} of {}",
                                       load.state, state.top_k, state.experts, state.model, spec.name,
                                       spec.moe.experts_per_token, spec.moe.routed_experts),
                           "a state written with `k3sim balance --model` of this model");
  }
  return state;
}

std::string routed_traffic_key(const MoeSamplingSpec& m) {
  // The group enters by its members' nodes, the only thing about it the routing reads.
  std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|", m.model_name, m.experts, m.top_k, m.width, m.node_limit,
                                m.copy_per_expert, m.balanced, m.sample_tokens, m.distinct_samples, m.seed);
  for (const int node : node_positions(m)) key += fmt::format("{},", node);
  return key;
}

RoutedTraffic route_samples(const MoeSamplingSpec& spec) { return route_over(spec, group_layout(spec)); }

MoeSample sample_moe(const MoeSamplingSpec& spec, const RoutedTraffic* routed) {
  const auto group = group_layout(spec);
  const int ep = group.ep;
  const auto& node_pos = group.node_pos;
  const auto& placement = *group.placement;
  const auto& placement_spec = group.placement_spec;
  const auto& shape = group.shape;
  MoeSample out;
  routing::ExpertLoad load = routing::uniform_expert_load(spec.distinct_samples, ep);
  if (spec.state != nullptr) {
    load = balancing::gpu_shares(*spec.state, placement, spec.distinct_samples, spec.state_at);
  } else if (!spec.balanced) {
    balancing::BalanceConfig base;
    base.shape = shape;
    base.router.seed = spec.seed;
    base.balancer = balancing::parse_balancer(spec.balancer, "expert_load.balancer", spec.bins);
    base.placement = placement_spec;
    base.tokens_per_rank = spec.balancer_tokens_per_rank;
    load = balancing::expert_load_after_balancing(base, spec.distinct_samples, spec.balancer_steps,
                                                core::resolve_threads(0));
  }
  out.load_source = load.source;
  out.sample_tokens_per_step = load.sample_tokens;
  if (load.sample_tokens > 0) {
    out.gpu_noise_floor = balancing::maxvio_noise_floor(load.sample_tokens * spec.top_k, ep, 1);
  }

  RoutedTraffic own;
  if (routed == nullptr) {
    own = route_over(spec, group);
    routed = &own;
  }
  const double scale = spec.tokens_per_gpu / spec.sample_tokens;
  for (int i = 0; i < spec.distinct_samples; ++i) {
    const auto& [elements, back, gpu_copies, node_copies] = routed->samples[static_cast<std::size_t>(i)];
    MoeLayerLoad layer;
    for (int g = 0; g < ep; ++g) layer.routed_factor.push_back(load.share(i, g) * ep);
    const auto to_experts = expected_matrix(elements, node_pos, layer.routed_factor, true);
    const auto from_experts = expected_matrix(back, node_pos, layer.routed_factor, false);
    layer.dispatch = scaled(to_experts, scale * spec.dispatch_bytes_per_element);
    layer.combine = scaled(from_experts, scale * spec.combine_bytes_per_element);
    layer.dispatch_grad = scaled(to_experts, scale * spec.gradient_bytes_per_element);
    layer.combine_grad = scaled(from_experts, scale * spec.gradient_bytes_per_element);
    const double tokens = static_cast<double>(spec.sample_tokens) * ep;
    out.distinct_gpus_per_token += gpu_copies / tokens / spec.distinct_samples;
    out.distinct_nodes_per_token += node_copies / tokens / spec.distinct_samples;
    out.max_over_mean.push_back(load.max_over_mean(i));
    out.layers.push_back(std::move(layer));
  }
  return out;
}

}  // namespace k3::workload
