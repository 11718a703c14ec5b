#include "model/routing/traffic.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace k3::routing {

DispatchAlgorithm parse_dispatch_algorithm(const std::string& text, const char* flag) {
  if (text == "flat") return DispatchAlgorithm::flat;
  if (text == "deepep" || text == "hierarchical") return DispatchAlgorithm::hierarchical;
  throw core::InputError({flag, "", 0}, fmt::format("unknown algorithm '{}'", text), "flat, deepep");
}

const char* to_string(DispatchAlgorithm a) { return a == DispatchAlgorithm::flat ? "flat" : "deepep"; }

LinkClassBytes& LinkClassBytes::operator+=(const LinkClassBytes& o) {
  nvlink += o.nvlink;
  nic += o.nic;
  fabric += o.fabric;
  local += o.local;
  return *this;
}

LinkClassBytes TrafficResult::bytes_per_token() const {
  LinkClassBytes total = dispatch;
  total += combine;
  return total.scaled(1.0 / tokens);
}

namespace {

class TrafficAccumulator {
 public:
  TrafficAccumulator(TrafficResult& r, const TrafficSpec& spec)
      : r_(r), dispatch_copy_(spec.width * spec.dispatch_bytes_per_element),
        combine_copy_(spec.width * spec.combine_bytes_per_element) {}

  // One token copy from `src` to `dst` (dispatch) and its reply (combine).
  void hop(int src, int dst) {
    const int gpn = r_.gpus_per_node;
    LinkClassBytes* d = &r_.dispatch;
    LinkClassBytes* c = &r_.combine;
    if (src == dst) {
      d->local += dispatch_copy_;
      c->local += combine_copy_;
      return;
    }
    const bool same_node = src / gpn == dst / gpn;
    if (same_node) {
      d->nvlink += dispatch_copy_;
      c->nvlink += combine_copy_;
    } else {
      d->nic += dispatch_copy_;
      c->nic += combine_copy_;
      if (src % gpn != dst % gpn) {
        d->fabric += dispatch_copy_;
        c->fabric += combine_copy_;
      }
    }
    const auto g = static_cast<std::size_t>(r_.gpus);
    r_.dispatch_matrix[static_cast<std::size_t>(src) * g + static_cast<std::size_t>(dst)] += dispatch_copy_;
    r_.combine_matrix[static_cast<std::size_t>(dst) * g + static_cast<std::size_t>(src)] += combine_copy_;
    const double both = dispatch_copy_ + combine_copy_;
    r_.gpu_bytes[static_cast<std::size_t>(src)] += both;
    r_.gpu_bytes[static_cast<std::size_t>(dst)] += both;
  }

 private:
  TrafficResult& r_;
  double dispatch_copy_, combine_copy_;
};

}  // namespace

TrafficResult compute_traffic(std::span<const RoutedBatch> per_gpu_batches, const ExpertPlacement& placement,
                              const TrafficSpec& spec) {
  const int gpus = placement.gpus();
  const int gpn = placement.gpus_per_node();
  K3SIM_ASSERT(static_cast<int>(per_gpu_batches.size()) == gpus, "one routed batch per GPU of the EP group");
  TrafficResult r;
  r.gpus = gpus;
  r.gpus_per_node = gpn;
  r.width = spec.width;
  r.top_k = per_gpu_batches.empty() ? 0 : per_gpu_batches.front().top_k;
  r.dispatch_matrix.assign(static_cast<std::size_t>(gpus) * static_cast<std::size_t>(gpus), 0.0);
  r.combine_matrix.assign(r.dispatch_matrix.size(), 0.0);
  r.gpu_bytes.assign(static_cast<std::size_t>(gpus), 0.0);
  TrafficAccumulator acc(r, spec);
  std::vector<char> gpu_hit(static_cast<std::size_t>(gpus));
  std::vector<int> dst_gpus;
  std::vector<char> node_hit(static_cast<std::size_t>(placement.nodes()));
  std::int64_t token_id = 0;
  for (int src = 0; src < gpus; ++src) {
    const RoutedBatch& batch = per_gpu_batches[static_cast<std::size_t>(src)];
    const int src_node = src / gpn, src_local = src % gpn;
    for (int i = 0; i < batch.tokens; ++i, ++token_id) {
      dst_gpus.clear();
      for (int s = 0; s < batch.top_k; ++s) {
        const int g = placement.gpu_for(batch.expert(i, s), token_id);
        if (!gpu_hit[static_cast<std::size_t>(g)]) {
          gpu_hit[static_cast<std::size_t>(g)] = 1;
          dst_gpus.push_back(g);
        }
      }
      r.tokens += 1;
      r.expert_copies += batch.top_k;
      r.gpu_copies += static_cast<double>(dst_gpus.size());
      for (int g : dst_gpus) {
        const int node = g / gpn;
        if (!node_hit[static_cast<std::size_t>(node)]) {
          node_hit[static_cast<std::size_t>(node)] = 1;
          r.node_copies += 1;
          if (spec.algorithm == DispatchAlgorithm::hierarchical && node != src_node)
            acc.hop(src, node * gpn + src_local);  // one NIC copy per node, to the same rail
        }
        if (spec.algorithm == DispatchAlgorithm::flat || node == src_node) {
          acc.hop(src, g);
        } else {
          const int relay = node * gpn + src_local;
          if (g != relay) acc.hop(relay, g);  // NVLink forwarding inside the destination node
        }
      }
      for (int g : dst_gpus) {
        gpu_hit[static_cast<std::size_t>(g)] = 0;
        node_hit[static_cast<std::size_t>(g / gpn)] = 0;
      }
    }
  }
  return r;
}

double expected_distinct_groups(int experts, int top_k, int groups) {
  const int per_group = experts / groups;
  // C(n - a, k) / C(n, k) = prod_{i<k} (n - a - i) / (n - i)
  double miss = 1.0;
  for (int i = 0; i < top_k; ++i) miss *= std::max(0.0, static_cast<double>(experts - per_group - i)) / (experts - i);
  return groups * (1.0 - miss);
}

}  // namespace k3::routing
