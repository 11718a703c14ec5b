#pragma once
// A small DeepSeek-V3 deployment on H100 (one prefill node pair, one decode node pair) for fast serving tests.
#include <string>

#include "sim/input/serve_scenario.hpp"

namespace k3::test {

inline std::string small_serving_yaml(const std::string& workload) {
  return "name: small\n"
         "model: deepseek-v3\n"
         "cluster: {topology: h100-rail, nodes: 4}\n"
         "network: analytical\n"
         "precision: {gemm: fp8, weights: fp8, dispatch: fp8, combine: bf16}\n"
         "deployment:\n"
         "  kind: disaggregated\n"
         "  prefill: {nodes: 2, attention_dp: 16}\n"
         "  decode: {nodes: 2, attention_dp: 16}\n"
         "scheduler: {prefill_token_budget: 8192, max_running_per_rank: 64, page_tokens: 64}\n"
         "slo: {ttft_s: 1.0, tpot_s: 0.05}\n" +
         workload;
}

inline input::ServeInputs small_serving(const std::string& workload, const std::vector<input::Override>& sets = {}) {
  return input::resolve_serve_scenario(input::parse_serve_scenario(small_serving_yaml(workload), "small.yaml", sets));
}

}  // namespace k3::test
