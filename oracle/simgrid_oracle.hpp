#pragma once
// Runs a set of flows in SimGrid (CM02 model, crosstraffic 0, TCP-gamma 0) and returns each flow's
// completion time, as a reference for k3sim's flow model.
//
// SimGrid's CM02 shares a bottleneck in inverse proportion to each flow's route latency (its model of TCP
// RTT unfairness); with zero-latency links every flow has the same weight and the sharing is pure max-min.
// So links are built with their capacities and zero latency, and each flow is started after its path
// latency instead, which is also what k3sim does (latency is paid before the first byte, without using
// bandwidth). The SimGrid engine is a process-wide singleton, so every call runs in a forked child.
#include <cstdint>
#include <vector>

namespace k3::oracle {

struct OracleLink {
  double capacity_bytes_per_s = 0;
  double latency_s = 0;
};

struct OracleFlow {
  std::uint32_t src = 0, dst = 0;  // endpoints (GPUs); every flow between one pair must take one path
  std::vector<std::uint32_t> path;
  std::uint64_t bytes = 0;
};

struct OracleRun {
  std::vector<double> completion_s;  // per flow, in input order
  double platform_wall_s = 0;        // building hosts, links and routes
  double simulate_wall_s = 0;        // starting the flows and running the engine
};

// All flows start at time 0 (and pay their path latency). Throws std::runtime_error if the child fails.
OracleRun simgrid_run(const std::vector<OracleLink>& links, const std::vector<OracleFlow>& flows);

}  // namespace k3::oracle
