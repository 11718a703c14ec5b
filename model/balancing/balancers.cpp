#include "model/balancing/balancers.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/error.hpp"

namespace k3::balancing {

namespace {

constexpr double kCountBytes = 4;  // 32-bit integer counts (a global batch stays below 2^31 tokens)
constexpr double kFloatBytes = 4;  // fp32 thresholds / scores

class NoBalancer final : public Balancer {
 public:
  std::string name() const override { return "none"; }
  void update(const BalancerInput&, std::vector<float>&) override {}
  core::Bytes allreduce_bytes_per_layer(int, double) const override { return 0; }
};

// Loss-free balancing (arXiv:2408.15664): b_j += u * sign(mean load - load_j). Needs the global loads: an
// all-reduce of n counts.
class SignSgdBalancer final : public Balancer {
 public:
  explicit SignSgdBalancer(double step) : step_(step) {}
  std::string name() const override { return "sign"; }
  void update(const BalancerInput& in, std::vector<float>& bias) override {
    double mean = 0;
    for (double l : in.expert_load) mean += l;
    mean /= static_cast<double>(in.expert_load.size());
    for (std::size_t j = 0; j < bias.size(); ++j) {
      const double diff = mean - in.expert_load[j];
      bias[j] += static_cast<float>(diff > 0 ? step_ : (diff < 0 ? -step_ : 0.0));
    }
  }
  core::Bytes allreduce_bytes_per_layer(int experts, double) const override { return experts * kCountBytes; }

 private:
  double step_;
};

// QB with the exact global quantile: every r_ij of the global batch in one place, i.e. an all-gather of
// m x n fp32 values per layer per step (the cost that makes it impractical, reported as such).
class QbExactBalancer final : public Balancer {
 public:
  std::string name() const override { return "qb-exact"; }
  void update(const BalancerInput& in, std::vector<float>& bias) override {
    bias = centred_bias(thresholds_exact(in.ranks, in.top_k));
  }
  core::Bytes allreduce_bytes_per_layer(int experts, double global_tokens) const override {
    return experts * global_tokens * kFloatBytes;
  }
};

// QB as K3 does it: per-rank histograms of B bins, one integer all-reduce of n x B counts.
class QbHistogramBalancer final : public Balancer {
 public:
  explicit QbHistogramBalancer(int bins) : bins_(bins) {}
  std::string name() const override { return "qb-hist"; }
  int bins() const override { return bins_; }
  void update(const BalancerInput& in, std::vector<float>& bias) override {
    bias = centred_bias(thresholds_histogram(in.ranks, in.top_k, bins_, bias));
  }
  core::Bytes allreduce_bytes_per_layer(int experts, double) const override {
    return static_cast<double>(experts) * bins_ * kCountBytes;
  }

 private:
  int bins_;
};

// QB from per-rank exact quantiles averaged across ranks: an all-reduce of n fp32 values.
class QbLocalMeanBalancer final : public Balancer {
 public:
  std::string name() const override { return "qb-local"; }
  void update(const BalancerInput& in, std::vector<float>& bias) override {
    bias = centred_bias(thresholds_local_mean(in.ranks, in.top_k));
  }
  core::Bytes allreduce_bytes_per_layer(int experts, double) const override { return experts * kFloatBytes; }
};

const char* kAllowed = "none, sign[:step], qb-exact, qb-hist[:bins], qb-local";

}  // namespace

BalancerSpec parse_balancer(const std::string& text, const std::string& flag, int default_bins) {
  BalancerSpec spec;
  spec.bins = default_bins;
  const auto colon = text.find(':');
  spec.kind = text.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (spec.kind != "none" && spec.kind != "sign" && spec.kind != "qb-exact" && spec.kind != "qb-hist" &&
      spec.kind != "qb-local")
    throw core::InputError({flag, "", 0}, fmt::format("unknown balancer '{}'", text), kAllowed);
  if (!arg.empty()) {
    if (spec.kind == "qb-hist") {
      int bins = 0;
      const auto [p, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), bins);
      if (ec != std::errc() || p != arg.data() + arg.size())
        throw core::InputError({flag, "", 0}, fmt::format("bins '{}' in '{}' is not an integer", arg, text), kAllowed);
      spec.bins = bins;
    } else if (spec.kind == "sign") {
      try {
        std::size_t used = 0;
        spec.sign_step = std::stod(arg, &used);
        if (used != arg.size()) throw std::invalid_argument(arg);
      } catch (const std::exception&) {
        throw core::InputError({flag, "", 0}, fmt::format("step '{}' in '{}' is not a number", arg, text), kAllowed);
      }
      if (!(spec.sign_step > 0))
        throw core::InputError({flag, "", 0}, fmt::format("sign step {} in '{}'", spec.sign_step, text), "> 0");
    } else {
      throw core::InputError({flag, "", 0}, fmt::format("balancer '{}' takes no ':' argument", spec.kind), kAllowed);
    }
  }
  if (spec.kind == "qb-hist" && spec.bins < 2)
    throw core::InputError({flag, "bins", 0}, fmt::format("{} histogram bins", spec.bins), ">= 2");
  return spec;
}

std::unique_ptr<Balancer> make_balancer(const BalancerSpec& spec) {
  if (spec.kind == "none") return std::make_unique<NoBalancer>();
  if (spec.kind == "sign") return std::make_unique<SignSgdBalancer>(spec.sign_step);
  if (spec.kind == "qb-exact") return std::make_unique<QbExactBalancer>();
  if (spec.kind == "qb-local") return std::make_unique<QbLocalMeanBalancer>();
  if (spec.kind == "qb-hist") {
    if (spec.bins < 2) throw core::InputError({"--bins", "", 0}, fmt::format("{} histogram bins", spec.bins), ">= 2");
    return std::make_unique<QbHistogramBalancer>(spec.bins);
  }
  throw core::InputError({"--balancer", "", 0}, fmt::format("unknown balancer '{}'", spec.kind), kAllowed);
}

std::string balancer_label(const BalancerSpec& spec) {
  if (spec.kind == "qb-hist" && spec.bins != 1000) return fmt::format("qb-hist:{}", spec.bins);
  if (spec.kind == "sign" && spec.sign_step != 1e-3) return fmt::format("sign:{}", spec.sign_step);
  return spec.kind;
}

}  // namespace k3::balancing
