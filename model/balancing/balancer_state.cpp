#include "model/balancing/balancer_state.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/json_file.hpp"
#include "core/rng.hpp"

namespace k3::balancing {

namespace {

constexpr const char* kFormat = "k3sim-balancer-state";

}  // namespace

BalancerState balancer_state(const BalanceConfig& base, int layers, int steps_before, int threads) {
  if (steps_before < 0)
    throw core::InputError({"--steps", "", 0}, fmt::format("{} bias updates", steps_before), ">= 0");
  if (layers < 1) throw core::InputError({"--layers", "", 0}, fmt::format("{} layer samples", layers), ">= 1");
  std::vector<BalanceConfig> configs;
  for (int l = 0; l < layers; ++l) {
    BalanceConfig c = base;
    c.router.seed = core::Rng::derive(base.router.seed, static_cast<std::uint64_t>(l));
    c.steps = steps_before + 1;  // batch N is routed with the bias after N updates
    c.track_bias_error = false;
    configs.push_back(c);
  }
  const auto runs = run_balance_all(configs, threads);
  BalancerState s;
  s.model = base.shape.name;
  s.experts = base.shape.experts;
  s.top_k = base.shape.top_k;
  s.balancer = balancer_label(base.balancer);
  s.steps = steps_before;
  s.seed = base.router.seed;
  s.tokens_per_step = static_cast<double>(base.ranks) * base.tokens_per_rank;
  s.source = fmt::format("{} on {} after {} steps, {} tokens per step ({} ranks, rank topic skew {}, popularity "
                         "sigma {}), seed {}",
                         s.balancer, s.model, steps_before, base.ranks * base.tokens_per_rank, base.ranks,
                         base.router.rank_topic_skew, base.router.popularity_sigma, base.router.seed);
  for (const auto& run : runs) s.expert_tokens.push_back(run.last_expert_load);
  return s;
}

routing::ExpertLoad gpu_shares(const BalancerState& state, const routing::ExpertPlacement& placement, int layers,
                      const core::InputLocation& where) {
  if (static_cast<int>(state.expert_tokens.size()) < layers) {
    throw core::InputError(where, fmt::format("the balancer state has {} layer samples; this run needs {}",
                                              state.expert_tokens.size(), layers),
                           fmt::format("a state written with --layers {} or more", layers));
  }
  routing::ExpertLoad load;
  load.layers = layers;
  load.gpus = placement.gpus();
  load.source = state.source;
  load.sample_tokens = state.tokens_per_step;
  for (int l = 0; l < layers; ++l) {
    const auto gpu = placement.gpu_load(state.expert_tokens[static_cast<std::size_t>(l)]);
    double total = 0;
    for (double v : gpu) total += v;
    for (double v : gpu) load.gpu_share.push_back(v / total);
  }
  return load;
}

routing::ExpertLoad expert_load_after_balancing(const BalanceConfig& base, int layers, int steps_before, int threads) {
  const routing::ExpertPlacement placement(base.shape.experts, base.placement);
  return gpu_shares(balancer_state(base, layers, steps_before, threads), placement, layers, {"--layers", "", 0});
}

nlohmann::json to_json(const BalancerState& s) {
  return {{"format", kFormat},   {"model", s.model},     {"experts", s.experts},
          {"top_k", s.top_k},    {"balancer", s.balancer}, {"steps", s.steps},
          {"seed", s.seed},      {"tokens_per_step", s.tokens_per_step}, {"source", s.source},
          {"expert_tokens", s.expert_tokens}};
}

BalancerState balancer_state_from_json(const nlohmann::json& doc, const std::string& source) {
  auto fail = [&](const std::string& key, const std::string& problem, const std::string& allowed) {
    throw core::InputError({source, key, 0}, problem, allowed);
  };
  // Every key of to_json(); all but "source" are required.
  const std::vector<std::string> keys = {"format", "model",           "experts", "top_k",  "balancer",
                                         "steps",  "tokens_per_step", "seed",    "source", "expert_tokens"};
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat)
    fail("format", std::string("not a k3sim balancer state (no \"format\": \"") + kFormat + "\")",
         "a file written by `k3sim balance --write-state`");
  for (const auto& [key, value] : doc.items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      fail(key, "unknown key", fmt::format("{}", fmt::join(keys, ", ")));
  }
  for (const auto& key : keys) {
    if (key != "source" && !doc.contains(key)) fail(key, "missing", "required");
  }
  auto text = [&](const char* key) {
    if (!doc[key].is_string()) fail(key, "not a string", "a string");
    return doc[key].get<std::string>();
  };
  auto integer = [&](const char* key, long long lo) {
    if (!doc[key].is_number_integer() || doc[key].get<long long>() < lo)
      fail(key, "not an integer >= " + std::to_string(lo), "an integer >= " + std::to_string(lo));
    return doc[key].get<long long>();
  };
  BalancerState s;
  s.model = text("model");
  s.balancer = text("balancer");
  s.source = doc.contains("source") && doc["source"].is_string() ? doc["source"].get<std::string>() : s.model;
  s.experts = static_cast<int>(integer("experts", 1));
  s.top_k = static_cast<int>(integer("top_k", 1));
  s.steps = static_cast<int>(integer("steps", 0));
  s.seed = static_cast<std::uint64_t>(integer("seed", 0));
  if (!doc["tokens_per_step"].is_number() || doc["tokens_per_step"].get<double>() <= 0)
    fail("tokens_per_step", "not a number > 0", "a number > 0");
  s.tokens_per_step = doc["tokens_per_step"].get<double>();
  const auto& rows = doc["expert_tokens"];
  if (!rows.is_array() || rows.empty()) fail("expert_tokens", "not a non-empty array of rows", "one row per layer sample");
  for (std::size_t l = 0; l < rows.size(); ++l) {
    const std::string key = fmt::format("expert_tokens[{}]", l);
    const auto& row = rows[l];
    if (!row.is_array() || static_cast<int>(row.size()) != s.experts)
      fail(key, "not an array of one number per expert", fmt::format("{} numbers", s.experts));
    std::vector<double> tokens;
    double sum = 0;
    for (const auto& v : row) {
      if (!v.is_number() || v.get<double>() < 0) fail(key, "not a number >= 0", "token counts >= 0");
      tokens.push_back(v.get<double>());
      sum += tokens.back();
    }
    if (sum <= 0) fail(key, "no tokens routed", "a row with a positive sum");
    s.expert_tokens.push_back(std::move(tokens));
  }
  return s;
}

BalancerState load_balancer_state(const std::string& path) {
  const std::string expected = "a balancer state written by `k3sim balance --write-state`";
  return balancer_state_from_json(core::read_json_file(path, expected), path);
}

}  // namespace k3::balancing
