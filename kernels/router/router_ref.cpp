#include "kernels/router/router_ref.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace k3::kernels {

namespace {

// Index of the largest value among allowed entries, ties to the lower index; -1 when none is allowed.
long argmax(const std::vector<float>& v, const std::vector<bool>& allowed) {
  long best = -1;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (allowed[i] && (best < 0 || v[i] > v[static_cast<std::size_t>(best)])) best = static_cast<long>(i);
  }
  return best;
}

}  // namespace

RouterOutput route_ref(std::span<const float> logits, std::span<const float> bias, std::size_t tokens,
                       const RouterShape& shape) {
  const std::size_t e_count = shape.experts;
  const std::size_t k = shape.top_k;
  K3SIM_ASSERT(logits.size() == tokens * e_count && bias.size() == e_count, "route_ref: bad sizes");
  K3SIM_ASSERT(shape.nodes >= 1 && e_count % shape.nodes == 0, "route_ref: experts must split evenly into nodes");
  K3SIM_ASSERT(k >= 1 && k <= e_count, "route_ref: top_k out of range");
  const std::size_t per_node = e_count / shape.nodes;
  RouterOutput out;
  out.expert.resize(tokens * k);
  out.gate.resize(tokens * k);
  out.cutoff.resize(tokens);
  std::vector<float> score(e_count), biased(e_count);
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t e = 0; e < e_count; ++e) {
      // Float arithmetic on purpose: the GPU computes 1/(1+expf(-x)) in float too.
      score[e] = 1.0f / (1.0f + std::exp(-logits[t * e_count + e]));
      biased[e] = score[e] + bias[e];
    }
    std::vector<bool> allowed(e_count, true);
    if (shape.max_nodes > 0 && shape.max_nodes < shape.nodes) {
      std::vector<float> node_score(shape.nodes);
      for (std::size_t n = 0; n < shape.nodes; ++n) {
        float first = -std::numeric_limits<float>::infinity(), second = first;
        for (std::size_t e = n * per_node; e < (n + 1) * per_node; ++e) {
          if (biased[e] > first) {
            second = first;
            first = biased[e];
          } else if (biased[e] > second) {
            second = biased[e];
          }
        }
        node_score[n] = per_node >= 2 ? first + second : first;
      }
      std::vector<bool> node_open(shape.nodes, true), node_kept(shape.nodes, false);
      for (std::size_t m = 0; m < shape.max_nodes; ++m) {
        const long n = argmax(node_score, node_open);
        node_open[static_cast<std::size_t>(n)] = false;
        node_kept[static_cast<std::size_t>(n)] = true;
      }
      for (std::size_t e = 0; e < e_count; ++e) allowed[e] = node_kept[e / per_node];
    }
    float chosen_sum = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const long e = argmax(biased, allowed);
      K3SIM_ASSERT(e >= 0, "route_ref: node limit leaves fewer than top_k experts");
      allowed[static_cast<std::size_t>(e)] = false;
      out.expert[t * k + j] = static_cast<std::int32_t>(e);
      chosen_sum += score[static_cast<std::size_t>(e)];
    }
    for (std::size_t j = 0; j < k; ++j) {
      out.gate[t * k + j] = score[static_cast<std::size_t>(out.expert[t * k + j])] / chosen_sum;
    }
    const long next = argmax(biased, allowed);
    out.cutoff[t] = next < 0 ? -std::numeric_limits<float>::infinity() : biased[static_cast<std::size_t>(next)];
  }
  return out;
}

}  // namespace k3::kernels
