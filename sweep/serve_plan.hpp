#pragma once
// `k3sim plan --serve RATE --ttft S --tpot S`: the smallest serving deployment of the scenario's model and GPU
// that meets an SLO at a Poisson arrival rate, and how it is laid out.
//
// The space at N nodes: disaggregated deployments (prefill instances of one shape beside decode instances of
// another) and colocated ones (instances doing both), each instance shape a power-of-two number of whole nodes
// with attention TP 1, 2, 4 or 8 inside a node (attention DP = the instance's GPUs / TP), EPLB's redundant
// experts at the base scenario's share per GPU, and instance counts that fill the N nodes exactly. Node counts
// climb 1, 2, 3, ... 16, then 24, 32, 48, ... from the smallest instance whose weights fit.
//
// Rules refuse a candidate without simulating it (counted per rule, with an example):
//   weights     an instance's weights leave no KV room (serve::rank_kv_capacity);
//   request     the stream's largest request does not fit one rank's KV;
//   tpot floor  decode at one sequence per rank is slower than the TPOT SLO, so no request meets it;
//   capacity    the stream's prompt (output) tokens per second exceed what the prefill (decode) instances move
//               at the largest batch their budget and KV cache allow; a queue that grows without bound misses
//               the SLO. Colocated instances must carry each phase at its own peak (a necessary condition).
// Survivors are simulated in order of capacity margin (the smaller of the two phases' capacity over demand),
// largest first, in rounds of 4 (on any thread count, so the same ones are simulated); a size ends after the
// round in which one meets the SLO (at least `attainment` of the measured requests within both TTFT and TPOT),
// or after `max_per_size` simulations
// (`exhaustive`: all survivors; without it a smaller size may keep survivors that were not simulated, which the
// result counts). The answer is the first size where one meets it; among those simulated there, the most
// goodput wins, then the most headroom (the smaller of P99 TTFT / SLO and P99 TPOT / SLO, as --search-ratio ranks).
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/input/serve_scenario.hpp"
#include "sim/serve/serve_result.hpp"

namespace k3::sweep {

struct ServeGoal {
  double rate_per_s = 0;   // Poisson arrivals
  double ttft_s = 0;
  double tpot_s = 0;
  double attainment = 0.9;  // share of the measured requests that must meet both
};

struct ServePlanOptions {
  ServeGoal goal;
  std::int64_t max_gpus = 4096;
  int threads = 1;
  int max_per_size = 16;
  bool exhaustive = false;
  std::FILE* progress = nullptr;  // one line per size tried
};

struct ServeCandidate {
  serve::DeploymentSpec deployment;
  int nodes = 0;
  double prefill_capacity_margin = 0;  // prompt tokens/s the prefill side can move over the stream's
  double decode_capacity_margin = 0;   // output tokens/s likewise
  double min_tpot_s = 0;               // decode at one sequence per rank
  std::optional<serve::ServeResult> result;
  std::string why_not;                 // simulated but refused by the simulator (its error)
  bool meets = false;
};

struct ServeRuleCount {
  std::size_t candidates = 0;
  std::string example;
};

struct ServeSizeTried {
  int nodes = 0;
  std::size_t candidates = 0;
  std::size_t survivors = 0;   // passed every rule
  std::size_t simulated = 0;   // of the survivors; the rest wait behind max_per_size
  std::map<std::string, ServeRuleCount> pruned;
  std::optional<double> best_attainment;  // among those simulated
  bool meets = false;
  double wall_s = 0;
};

struct ServeDemand {
  std::size_t requests = 0;
  double prompt_tokens_per_s = 0;   // computed ones (prefix-cache hits removed)
  double output_tokens_per_s = 0;
  double mean_prompt_tokens = 0, mean_output_tokens = 0;
};

struct ServePlanResult {
  ServeGoal goal;
  ServeDemand demand;
  int gpus_per_node = 0;
  std::vector<ServeSizeTried> tried;
  std::vector<ServeCandidate> ranked;  // simulated candidates of the chosen size, best first (meeting ones first)
  std::optional<int> chosen_nodes;
};

// Resolves the base serving scenario on `nodes` nodes (its cluster resized); InputError when it cannot be.
using ResolveServeOnNodes = std::function<input::ServeInputs(int nodes)>;

// Throws InputError naming the flag for a goal that is not positive or an attainment outside (0, 1].
ServePlanResult plan_serving(const ServePlanOptions& options, const ResolveServeOnNodes& resolve);

// "2 x prefill 1 node tp1 + 1 x decode 2 nodes tp1", "3 x colocated 2 nodes tp8".
std::string deployment_text(const serve::DeploymentSpec& d, int gpus_per_node);

// The ServeSpec of `candidate` on the base spec: its deployment, the goal's arrivals and SLO.
serve::ServeSpec candidate_spec(const serve::ServeSpec& base, const serve::DeploymentSpec& deployment, const ServeGoal& goal);

nlohmann::json serve_plan_to_json(const ServePlanResult& r);

}  // namespace k3::sweep
