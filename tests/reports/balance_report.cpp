// Runs the balancing experiment of K3 (top-16 of 896 in a 3584 latent) against the iso-cost top-8 of 448
// at 7168, under Quantile Balancing and sign-SGD, and writes what `k3sim balance --json --report` writes:
//   balance_report out.html out.json [steps] [tokens_per_rank]
// Used by the browser test until the `balance` subcommand lands (it calls the same two functions).
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "reports/sections/balance.hpp"

using namespace k3;

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: balance_report out.html out.json [steps] [tokens_per_rank]\n");
    return 2;
  }
  try {
    const int steps = argc > 3 ? std::stoi(argv[3]) : 100;
    const int tokens = argc > 4 ? std::stoi(argv[4]) : 1024;
    // Shapes from DESIGN.md (K3 published config; 92 MoE layers = 93 minus the dense first layer).
    const routing::MoeRoutingShape k3{"k3", 896, 16, 3584, 92};
    const routing::MoeRoutingShape k3_448{"k3-448", 448, 8, 7168, 92};
    std::vector<routing::BalanceConfig> configs;
    for (const auto& shape : {k3, k3_448}) {
      for (const char* kind : {"qb-hist", "sign"}) {
        routing::BalanceConfig cfg;
        cfg.shape = shape;
        cfg.balancer.kind = kind;
        cfg.steps = steps;
        cfg.tokens_per_rank = tokens;
        cfg.router.seed = 7;
        routing::validate(cfg);
        configs.push_back(cfg);
      }
    }
    const auto runs = routing::run_balance_all(configs, 2);
    reports::Report report("Load balancing: K3 vs top-8-of-448",
                           "Quantile Balancing and sign-SGD on a synthetic router, 8 ranks");
    reports::add_balance_section(report, runs);
    report.add_run_info({"balance_report " + std::to_string(steps) + " " + std::to_string(tokens), "k3sim 0.1.0", 7,
                         "", "",
                         {{"K3 routed experts / top-k / latent", "896 / 16 / 3584", "arXiv:2607.24653 (DESIGN.md)"},
                          {"Iso-cost alternative", "448 / 8 / 7168", "DESIGN.md, seeds"},
                          {"Sign-SGD step u", "1e-3", "arXiv:2408.15664"},
                          {"QB histogram bins", "1000", "K3 report (DESIGN.md)"}}});
    report.write_html(argv[1]);
    std::ofstream json(argv[2]);
    json << reports::balance_json(runs).dump(2) << '\n';
    if (!json) throw std::runtime_error(std::string("cannot write ") + argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "balance_report: %s\n", e.what());
    return 1;
  }
  return 0;
}
