#pragma once
// The prefill:decode split that serves the scenario's stream best: every split of the deployment's nodes
// between its one prefill and one decode instance (each keeping its attention-DP ranks per node), simulated
// on the same stream; the best has the most goodput, then the most headroom under the SLO (the smallest of the
// larger of P99 TTFT / SLO and P99 TPOT / SLO). A split whose weights or requests do not fit is listed with the
// reason.
#include <string>
#include <vector>

#include "sim/serve/serving_simulator.hpp"

namespace k3::serve {

struct RatioPoint {
  int prefill_nodes = 0, decode_nodes = 0;
  bool fits = true;
  std::string why;      // when it does not fit: the capacity error's problem
  ServeResult result;   // when it fits
};

struct RatioSearch {
  std::vector<RatioPoint> points;  // by prefill nodes, ascending
  int best = -1;                   // index into points; -1 when none fits
};

// Throws core::InputError naming deployment when the deployment is not one prefill and one decode instance.
RatioSearch search_prefill_decode_ratio(const model::ModelSpec& model, const topo::Topology& topology,
                                        const cost::CalibrationProfile* profile, const ServeSpec& spec, int threads);

}  // namespace k3::serve
