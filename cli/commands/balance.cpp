// k3sim balance: load-balancing dynamics of the router bias (Quantile Balancing variants against sign-SGD
// and no balancing) for each model, per step MaxVio against the sampling-noise floor of the batch.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/threads.hpp"
#include "model/balancing/balance_experiment.hpp"
#include "model/balancing/balancer_state.hpp"
#include "model/balancing/load_stats.hpp"
#include "core/version.hpp"
#include "model/routing/model_shape.hpp"
#include "reports/sections/balance.hpp"
#include "results/balance_output.hpp"
#include "core/error.hpp"

namespace k3::cli {

namespace {

struct BalanceOptions {
  std::string models = "k3,k3-448";
  std::string balancers = "qb-hist,qb-exact,qb-local,sign,none";
  int bins = 1000;
  int steps = 120;
  int ranks = 8;
  int tokens_per_rank = 512;
  int ep = 64;
  int gpus_per_node = 8;
  double rank_skew = 0.5;
  double popularity_sigma = 0.3;
  double drift_walk = 0.0;
  double drift_feedback = 0.0;
  std::uint64_t seed = 1;
  int threads = 0;
  bool json = false;
  std::string csv;
  std::string report;
  std::string write_state;
  int layers = 4;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

void write_csv(const std::string& path, const std::vector<balancing::BalanceRun>& runs) {
  std::ofstream out(path);
  if (!out) throw core::InputError({"--csv", "", 0}, fmt::format("cannot write '{}'", path), "a writable path");
  out << "model,balancer,step,max_vio_ratio,noise_floor_ratio,max_vio_over_floor,gpu_max_over_mean_ratio,"
         "bias_error_max_score_units,bias_error_rms_score_units\n";
  for (const auto& r : runs)
    for (const auto& s : r.curve)
      out << fmt::format("{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g}\n", r.model, r.balancer, s.step, s.max_vio,
                         r.noise_floor, s.max_vio / r.noise_floor, s.gpu_max_over_mean, s.bias_error_max,
                         s.bias_error_rms);
}

void print_text(const std::vector<balancing::BalanceRun>& runs, const BalanceOptions& o) {
  fmt::print("Router-bias balancing: {} ranks x {} tokens per step, {} steps, EP {}, rank topic skew {}, seed {}\n",
             o.ranks, o.tokens_per_rank, o.steps, o.ep, o.rank_skew, o.seed);
  fmt::print("{:<8} {:<14} {:>12} {:>16} {:>14} {:>14} {:>18}\n", "model", "balancer", "floor [-]",
             "steps to 1.5xfl", "steady mean[-]", "steady p99[-]", "all-reduce/layer");
  for (const auto& r : runs) {
    const double b = r.allreduce_bytes_per_layer;
    const std::string bytes = b >= 1048576 ? fmt::format("{:.2f} MiB", b / 1048576.0)
                              : b >= 1024  ? fmt::format("{:.2f} KiB", b / 1024.0)
                                           : fmt::format("{:.0f} B", b);
    fmt::print("{:<8} {:<14} {:>12.4f} {:>16} {:>14.4f} {:>14.4f} {:>18}\n", r.model, r.balancer, r.noise_floor,
               r.steps_to_floor ? fmt::format("{}", *r.steps_to_floor) : std::string("never"), r.steady_maxvio_mean,
               r.steady_maxvio_p99, bytes);
  }
  fmt::print("MaxVio = (max - mean) / mean tokens per expert of the global batch; floor = its expected value for a\n"
             "router with equal expected loads (sampling noise only); steady = second half of the steps.\n");
}

// --write-state: one model, one balancer, `layers` independent routers after `steps` bias updates.
void write_state(const balancing::BalanceConfig& config, const BalanceOptions& o, int threads) {
  const auto state = balancing::balancer_state(config, o.layers, o.steps, threads);
  std::ofstream out(o.write_state);
  out << to_json(state).dump(1) << "\n";  // a file that failed to open fails the write too
  if (!out) throw core::InputError({"--write-state", "", 0}, fmt::format("cannot write '{}'", o.write_state), "a writable path");
  const routing::ExpertPlacement placement(config.shape.experts, config.placement);
  const auto load = balancing::gpu_shares(state, placement, o.layers, {"--layers", "", 0});
  fmt::print("wrote {}: {}\n", o.write_state, state.source);
  for (int l = 0; l < o.layers; ++l) {
    fmt::print("  layer sample {}: tokens per expert max/mean {:.3f}, per GPU of EP {} max/mean {:.3f}\n", l,
               balancing::max_over_mean(state.expert_tokens[static_cast<std::size_t>(l)]), o.ep,
               load.max_over_mean(l));
  }
  fmt::print("use it with `expert_load: {{kind: state, state: {}}}` in a scenario of {}\n", o.write_state, state.model);
}

}  // namespace

void attach_balance(CLI::App& command, int& exit_status) {
  auto opt = std::make_shared<BalanceOptions>();
  auto* cmd = &command;
  cmd->option_defaults()->always_capture_default();  // --report lists every option as run, defaults included
  cmd->add_option("--model", opt->models, "Comma-separated models (default k3,k3-448)");
  cmd->add_option("--balancer", opt->balancers,
                  "Comma-separated: qb-hist[:bins], qb-exact, qb-local, sign[:step], none (default all)");
  cmd->add_option("--bins", opt->bins, "Histogram bins for qb-hist (default 1000)");
  cmd->add_option("--steps", opt->steps, "Steps (batches) per run");
  cmd->add_option("--ranks", opt->ranks, "Data-parallel ranks contributing to each global batch");
  cmd->add_option("--tokens-per-rank", opt->tokens_per_rank, "Tokens per rank per step");
  cmd->add_option("--ep", opt->ep, "Expert-parallel group for the per-GPU load (default 64)");
  cmd->add_option("--gpus-per-node", opt->gpus_per_node, "GPUs per node (default 8)");
  cmd->add_option("--rank-skew", opt->rank_skew, "0: ranks draw topics alike; 1: each rank one topic (default 0.5)");
  cmd->add_option("--popularity-sigma", opt->popularity_sigma, "Initial imbalance: std of expert logit offsets");
  cmd->add_option("--drift-walk", opt->drift_walk, "Drift: random-walk std of every logit per step (default 0)");
  cmd->add_option("--drift-feedback", opt->drift_feedback, "Drift: rich-get-richer gain per step (default 0)");
  cmd->add_option("--seed", opt->seed, "Random seed (default 1)");
  cmd->add_option("-j,--jobs,--threads", opt->threads, "Worker threads (default: hardware threads)");
  cmd->add_flag("--json", opt->json, "Print JSON");
  cmd->add_option("--csv", opt->csv, "Write the per-step curves to this CSV file");
  cmd->add_option("--report", opt->report, "Write a self-contained HTML report to this file");
  cmd->add_option("--write-state", opt->write_state,
                  "Write the balancer state after --steps bias updates (one --model, one --balancer) for a "
                  "scenario's expert_load.state, instead of the curves");
  cmd->add_option("--layers", opt->layers, "Independent layer samples in the --write-state file (default 4)");
  cmd->callback([opt, cmd, &exit_status] {
    if (opt->bins < 2) throw core::InputError({"--bins", "", 0}, fmt::format("{} bins", opt->bins), ">= 2");
    std::vector<balancing::BalanceConfig> configs;
    const auto models = split_list(opt->models);
    const auto balancers = split_list(opt->balancers);
    if (models.empty()) throw core::InputError({"--model", "", 0}, "no model given", "k3, k3-448");
    if (balancers.empty())
      throw core::InputError({"--balancer", "", 0}, "no balancer given", "qb-hist, qb-exact, qb-local, sign, none");
    for (const auto& m : models) {
      for (const auto& b : balancers) {
        balancing::BalanceConfig c;
        c.shape = routing::load_routing_shape(m, "--model");
        c.balancer = balancing::parse_balancer(b, "--balancer", opt->bins);
        c.steps = opt->steps;
        c.ranks = opt->ranks;
        c.tokens_per_rank = opt->tokens_per_rank;
        c.placement = {routing::PlacementKind::contiguous, opt->ep, opt->gpus_per_node, 0};
        c.router.rank_topic_skew = opt->rank_skew;
        c.router.popularity_sigma = opt->popularity_sigma;
        c.router.drift_walk = opt->drift_walk;
        c.router.drift_feedback = opt->drift_feedback;
        c.router.seed = opt->seed;
        configs.push_back(c);
      }
    }
    const int threads = core::resolve_threads(opt->threads);
    if (!opt->write_state.empty()) {
      if (configs.size() != 1) {
        throw core::InputError({"--write-state", "", 0},
                               fmt::format("{} models x {} balancers given", models.size(), balancers.size()),
                               "exactly one --model and one --balancer");
      }
      if (opt->layers < 1) throw core::InputError({"--layers", "", 0}, fmt::format("{} layer samples", opt->layers), ">= 1");
      balancing::validate(configs.front());
      write_state(configs.front(), *opt, threads);
      exit_status = 0;
      return;
    }
    const auto runs = balancing::run_balance_all(configs, threads);
    if (!opt->csv.empty()) write_csv(opt->csv, runs);
    if (!opt->report.empty())
      reports::write_balance_report(opt->report, runs, {"k3sim balance", std::string(core::version_string()), opt->seed, "Options as run (defaults included)", cmd->config_to_str(true, false), {}});
    if (opt->json) {
      nlohmann::json out = {{"ranks", opt->ranks},        {"tokens_per_rank", opt->tokens_per_rank},
                            {"steps", opt->steps},        {"ep", opt->ep},
                            {"rank_topic_skew", opt->rank_skew}, {"seed", opt->seed},
                            {"runs", nlohmann::json::array()}};
      for (const auto& r : runs) out["runs"].push_back(results::balance_run_to_json(r));
      fmt::print("{}\n", out.dump(2));
    } else {
      print_text(runs, *opt);
    }
    exit_status = 0;
  });
}

}  // namespace k3::cli
