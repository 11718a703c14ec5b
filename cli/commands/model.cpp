// `k3sim model <preset|file.yaml|config.json> [--seq N] [--json] [--vs other]`: parameters, FLOPs, memory and
// KV cache of a model, per layer kind and in total; with --vs, two models side by side.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "model/kv_cache.hpp"
#include "model/memory.hpp"
#include "model/model_spec.hpp"
#include "model/ops.hpp"
#include "model/totals.hpp"
#include "core/error.hpp"
#include "core/quantity.hpp"

namespace k3::cli {

namespace {

struct ModelOptions {
  std::string target;
  std::string vs;
  std::string seq = "4096";
  bool json = false;
};

struct Report {
  model::ModelSpec spec;
  model::ModelTotals totals;
  std::vector<model::OpBlock> blocks;  // one sequence of `seq` tokens
};

Report analyse(const std::string& target, double seq) {
  Report r{model::load_model(target), {}, {}};
  r.totals = model::summarize(r.spec, seq);
  model::MicroBatch mb;
  mb.seq = seq;
  r.blocks = model::build_ops(r.spec, mb);
  return r;
}

// Expert GEMM shapes for the first MoE layer: "E x [n x k]" of the up and down projections.
std::string expert_shapes(const Report& r) {
  for (const auto& b : r.blocks) {
    if (b.role != model::BlockRole::Layer) continue;
    std::string out;
    for (const auto& op : b.ops) {
      if (const auto* e = std::get_if<model::ExpertGemmShape>(&op.shape)) {
        out += fmt::format("{}{}: {} x [{:.0f} x {:.0f}], {:.1f} tok/expert/seq", out.empty() ? "" : "; ", op.name,
                           e->experts, e->n, e->k, e->tokens_per_expert);
      }
    }
    if (!out.empty()) return out;
  }
  return "none (dense)";
}

nlohmann::json to_json(const Report& r) {
  const auto& t = r.totals;
  const auto& s = r.spec;
  nlohmann::json j;
  j["name"] = s.name;
  j["source"] = s.source;
  j["seq"] = t.seq;
  j["total_params"] = t.total_params;
  j["total_params_without_mtp"] = t.total_params_without_mtp;
  j["mtp_params"] = t.mtp_params;
  j["embedding_params"] = t.embedding_params;
  j["activated_params"] = t.activated_params;
  j["activated_params_with_embedding"] = t.activated_params_with_embedding;
  j["training_flops_per_token"] = t.training_flops_per_token;
  j["training_flops_per_token_noncausal"] = t.training_flops_per_token_noncausal;
  j["forward_flops_per_token"] = t.forward_flops_per_token;
  j["mtp_training_flops_per_token"] = t.mtp_training_flops_per_token;
  j["elementwise_flops_per_token"] = t.elementwise_flops_per_token;
  j["routed_flops_per_token"] = t.routed_flops_per_token;
  j["dispatch_elements_per_token"] = t.dispatch_elements_per_token;
  j["kv_cache_bytes_per_token"] = t.kv_cache_bytes_per_token;
  j["state_bytes_per_sequence"] = t.state_bytes_per_sequence;
  if (s.published.total_params > 0) {
    j["published"] = {{"total_params", s.published.total_params},
                      {"activated_params", s.published.activated_params},
                      {"source", s.published.source}};
  }
  j["router"] = s.has_moe() ? nlohmann::json{{"experts", s.moe.routed_experts}, {"input_dim", s.hidden},
                                              {"experts_per_token", s.moe.experts_per_token},
                                              {"expert_io_dim", s.moe.expert_io_dim(s.hidden)}}
                            : nlohmann::json(nullptr);
  j["expert_gemms"] = expert_shapes(r);
  for (const auto& k : t.layers) {
    j["layers"].push_back({{"kind", k.kind}, {"count", k.count}, {"params", k.params},
                           {"activated_params", k.activated_params}, {"flops", k.flops},
                           {"forward_flops", k.fwd_flops_per_token}, {"routed_flops", k.routed_flops_per_token}});
  }
  auto& mem = j["memory"];
  for (auto opt : {model::Optimizer::AdamW, model::Optimizer::Muon}) {
    const auto st = model::param_state_bytes(r.blocks, opt);
    mem["param_state"][model::to_string(opt)] = {{"weight_bytes", st.weights}, {"gradient_bytes", st.gradients},
                                                 {"optimizer_bytes", st.optimizer},
                                                 {"bytes_per_param", st.bytes_per_param()}};
  }
  for (auto pol : {model::RecomputePolicy::none(), model::RecomputePolicy::selective(),
                   model::RecomputePolicy::whole_blocks()}) {
    mem["activation_bytes_per_sequence"][model::to_string(pol)] = model::activation_bytes(r.blocks, pol);
    mem["recompute_flops_per_sequence"][model::to_string(pol)] = model::recompute_flops(r.blocks, pol);
  }
  return j;
}

void print_text(const Report& r) {
  const auto& t = r.totals;
  fmt::print("{} ({})\n", r.spec.name, r.spec.source);
  fmt::print("{:<12} {:>5} {:>12} {:>12} {:>18}\n", "layer kind", "count", "params", "activated", "train GFLOP/token");
  for (const auto& k : t.layers) {
    fmt::print("{:<12} {:>5} {:>12} {:>12} {:>18.2f}\n", k.kind, k.count, core::format_count(k.params),
               core::format_count(k.activated_params), k.flops / 1e9);
  }
  fmt::print("total params          {} (without MTP {}, MTP {})\n", core::format_count(t.total_params),
             core::format_count(t.total_params_without_mtp), core::format_count(t.mtp_params));
  fmt::print("activated params      {} per token (excluding the {} embedding table)\n",
             core::format_count(t.activated_params), core::format_count(t.embedding_params));
  if (r.spec.published.total_params > 0) {
    fmt::print("published             {} total, {} activated ({})\n", core::format_count(r.spec.published.total_params),
               core::format_count(r.spec.published.activated_params), r.spec.published.source);
  }
  if (!r.spec.ignored_keys.empty()) {
    fmt::print("ignored config keys   {} (no effect on compute or memory)\n", fmt::join(r.spec.ignored_keys, ", "));
  }
  fmt::print("training FLOPs        {:.1f} GFLOP/token at seq {:.0f} causal ({:.1f} non-causal; MTP +{:.1f})\n",
             t.training_flops_per_token / 1e9, t.seq, t.training_flops_per_token_noncausal / 1e9,
             t.mtp_training_flops_per_token / 1e9);
  fmt::print("KV cache              {:.0f} B/token; state {} per sequence\n", t.kv_cache_bytes_per_token,
             core::format_bytes(t.state_bytes_per_sequence));
  for (auto opt : {model::Optimizer::AdamW, model::Optimizer::Muon}) {
    const auto st = model::param_state_bytes(r.blocks, opt);
    fmt::print("weights+grads+{:<6}  {} ({:.1f} B/param)\n", model::to_string(opt), core::format_bytes(st.total()),
               st.bytes_per_param());
  }
  fmt::print("activations per seq   none {}, selective {}, full {}\n",
             core::format_bytes(model::activation_bytes(r.blocks, model::RecomputePolicy::none())),
             core::format_bytes(model::activation_bytes(r.blocks, model::RecomputePolicy::selective())),
             core::format_bytes(model::activation_bytes(r.blocks, model::RecomputePolicy::whole_blocks())));
}

void print_vs(const Report& a, const Report& b) {
  auto row = [&](const std::string& what, const std::string& x, const std::string& y) {
    fmt::print("{:<34} {:>28} {:>28}\n", what, x, y);
  };
  auto router = [](const Report& r) {
    return r.spec.has_moe() ? fmt::format("{} x {}, top-{}", r.spec.moe.routed_experts, r.spec.hidden,
                                          r.spec.moe.experts_per_token)
                            : std::string("none");
  };
  row("", a.spec.name, b.spec.name);
  row("total params", core::format_count(a.totals.total_params), core::format_count(b.totals.total_params));
  row("activated params", core::format_count(a.totals.activated_params), core::format_count(b.totals.activated_params));
  row("training GFLOP/token", fmt::format("{:.1f}", a.totals.training_flops_per_token / 1e9),
      fmt::format("{:.1f}", b.totals.training_flops_per_token / 1e9));
  row("routed-expert GFLOP/token", fmt::format("{:.1f}", a.totals.routed_flops_per_token / 1e9),
      fmt::format("{:.1f}", b.totals.routed_flops_per_token / 1e9));
  auto a2a = [](const Report& r) {
    return r.spec.has_moe() ? fmt::format("{} = {} x {}", r.totals.dispatch_elements_per_token,
                                          r.spec.moe.experts_per_token, r.spec.moe.expert_io_dim(r.spec.hidden))
                            : std::string("0");
  };
  row("all-to-all elements/token/layer", a2a(a), a2a(b));
  row("router (experts x width)", router(a), router(b));
  row("KV cache B/token", fmt::format("{:.0f}", a.totals.kv_cache_bytes_per_token),
      fmt::format("{:.0f}", b.totals.kv_cache_bytes_per_token));
  fmt::print("expert GEMMs ({}): {}\nexpert GEMMs ({}): {}\n", a.spec.name, expert_shapes(a), b.spec.name,
             expert_shapes(b));
}

}  // namespace

void attach_model(CLI::App& command, int& exit_status) {
  auto opt = std::make_shared<ModelOptions>();
  auto* cmd = &command;
  cmd->add_option("model", opt->target, "preset name (k3, k3-448, kimi-k2, ...), a preset .yaml or a config.json")
      ->required();
  cmd->add_option("--seq", opt->seq, "sequence length in tokens for attention FLOPs and activations (4096, 128K)");
  cmd->add_option("--vs", opt->vs, "a second model to show side by side");
  cmd->add_flag("--json", opt->json, "print JSON to stdout");
  cmd->callback([opt, &exit_status]() {
    const auto seq = core::parse_quantity(opt->seq);
    if (!seq || *seq < 1) throw core::InputError({"--seq", "", 0}, "bad sequence length '" + opt->seq + "'", "a positive count such as 4096 or 128K");
    const auto a = analyse(opt->target, *seq);
    if (opt->vs.empty()) {
      if (opt->json) fmt::print("{}\n", to_json(a).dump(2)); else print_text(a);
    } else {
      const auto b = analyse(opt->vs, *seq);
      if (opt->json) {
        fmt::print("{}\n", nlohmann::json{{"models", {to_json(a), to_json(b)}}}.dump(2));
      } else {
        print_vs(a, b);
      }
    }
    exit_status = 0;
  });
}

}  // namespace k3::cli
