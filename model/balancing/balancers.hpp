#pragma once
// Load balancers of the router bias, one class each behind one interface. Each step the global batch is
// routed with the current bias, then `update` sets the bias for the next step from that batch (the batch is
// never re-routed with the bias it produced). Each reports the bytes it must all-reduce per MoE layer per
// step, the price of its global view.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/balancing/quantile.hpp"
#include "core/units.hpp"

namespace k3::balancing {

struct BalancerInput {
  std::span<const RankRouting> ranks;  // the global batch, rank by rank, routed with the current bias
  std::span<const double> expert_load; // tokens per expert in the global batch (size n)
  int top_k = 0;
};

class Balancer {
 public:
  virtual ~Balancer() = default;
  // e.g. "qb-hist" (bins in bins()), "sign", "none".
  virtual std::string name() const = 0;
  virtual void update(const BalancerInput& in, std::vector<float>& bias) = 0;
  // Bytes each rank contributes to the per-layer, per-step collective (all-reduce, or all-gather for the exact
  // global quantile) for `experts` experts and a global batch of `global_tokens`.
  virtual core::Bytes allreduce_bytes_per_layer(int experts, double global_tokens) const = 0;
  virtual int bins() const { return 0; }
};

// "none", "sign" (step = u), "qb-exact", "qb-hist" (bins), "qb-local".
struct BalancerSpec {
  std::string kind;
  int bins = 1000;
  double sign_step = 1e-3;
};

// Parses "qb-hist", "qb-hist:10000" (bins), "sign", "sign:0.0005" (step), ... ; InputError naming `flag`
// for an unknown kind or bins < 2.
BalancerSpec parse_balancer(const std::string& text, const std::string& flag, int default_bins);
std::unique_ptr<Balancer> make_balancer(const BalancerSpec& spec);
// The label a run is reported under: the kind, plus ":<bins>" when qb-hist bins differ from 1000.
std::string balancer_label(const BalancerSpec& spec);

}  // namespace k3::balancing
