#pragma once
// `k3sim plan SERVING.yaml --serve RATE [--ttft S] [--tpot S] [--attainment F]`: the serving goal of `plan`
// (sweep/serve_plan.hpp), its printing and its --write-best.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace k3::cli {

struct ServePlanCliOptions {
  std::string scenario;
  std::vector<std::string> sets;  // --set, and --gpu's cluster.topology
  double rate_per_s = 0;
  std::optional<double> ttft_s, tpot_s;  // the scenario's SLO when absent
  double attainment = 0.9;
  std::int64_t max_gpus = 4096;
  bool exhaustive = false;
  int threads = 1;
  bool json = false;
  std::string write_best;
  std::string report;
  std::string command;  // as the report names it
  std::string profile;
};

int plan_serving_goal(const ServePlanCliOptions& o);

}  // namespace k3::cli
