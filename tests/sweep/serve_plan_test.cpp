#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "sim/serve/serving_simulator.hpp"
#include "sweep/serve_plan.hpp"
#include "tests/serve/serve_fixture.hpp"

namespace k3::sweep {
namespace {

// DeepSeek-V3 (FP8 weights, 671 GB) on H100 nodes of 8 x 80 GB: one node cannot hold the weights, two can.
const char* kWorkload =
    "workload:\n"
    "  arrival: {kind: poisson, rate_per_s: 1}\n"
    "  prompt_tokens: 2000\n"
    "  output_tokens: 100\n"
    "  duration_s: 20\n"
    "  warmup_s: 5\n";

input::ServeInputs on_nodes(int nodes) {
  std::vector<input::Override> sets;
  if (nodes > 0) sets.push_back({"cluster.nodes", std::to_string(nodes)});
  return test::small_serving(kWorkload, sets);
}

// Every deployment of `nodes` nodes the search's space holds (serve_plan.hpp): instance shapes of 1, 2, 4, ...
// nodes with attention TP 1, 2, 4 or 8, colocated instances of one shape filling the nodes, or prefill instances of
// one shape beside decode instances of another.
std::vector<serve::DeploymentSpec> every_deployment(int nodes) {
  const auto instance = [](int n, int tp) {
    serve::InstanceSpec is;
    is.nodes = n;
    is.attention_dp = n * 8 / tp;
    return is;
  };
  std::vector<serve::DeploymentSpec> out;
  for (int ps = 1; ps <= nodes; ps *= 2) {
    for (int ptp : {1, 2, 4, 8}) {
      if (nodes % ps == 0) {
        serve::DeploymentSpec d;
        d.kind = serve::DeploymentKind::colocated;
        d.prefill = d.decode = instance(ps, ptp);
        d.prefill_instances = nodes / ps;
        out.push_back(d);
      }
      for (int pc = 1; pc * ps < nodes; ++pc) {
        for (int ds = 1; ds <= nodes - pc * ps; ds *= 2) {
          if ((nodes - pc * ps) % ds != 0) continue;
          for (int dtp : {1, 2, 4, 8}) {
            serve::DeploymentSpec d;
            d.prefill = instance(ps, ptp);
            d.decode = instance(ds, dtp);
            d.prefill_instances = pc;
            d.decode_instances = (nodes - pc * ps) / ds;
            out.push_back(d);
          }
        }
      }
    }
  }
  return out;
}

TEST(ServePlan, AnswersTheSmallestSizeAndTheBestDeploymentOfAnExhaustiveSimulation) {
  // 32 requests/s of 2,000-token prompts for TTFT <= 2 s and TPOT <= 100 ms for 90% of requests. Of 2 nodes
  // only one colocated 2-node instance holds the weights (4 attention TPs), and every deployment of 3 nodes has a
  // 1-node instance, which cannot; 4 nodes allow two instances. The brute force below simulates every deployment
  // of every size up to the answer, rules ignored: none below the answer meets the goal, and the plan's best at
  // the answer has the most goodput there (then the least P99 latency over SLO). Measured when written: the
  // 2-node instance reaches at most 53% of requests within the SLO, so the answer is 4 nodes.
  ServePlanOptions o;
  o.goal = {32, 2.0, 0.1, 0.9};
  o.max_gpus = 64;
  o.exhaustive = true;
  o.threads = 2;
  const auto r = plan_serving(o, on_nodes);
  ASSERT_TRUE(r.chosen_nodes.has_value());
  const int answer = *r.chosen_nodes;
  EXPECT_EQ(answer, 4);
  ASSERT_FALSE(r.ranked.empty());
  ASSERT_TRUE(r.ranked.front().meets);

  std::optional<double> best_goodput, best_headroom;
  for (int nodes = 1; nodes <= answer; ++nodes) {
    const auto in = on_nodes(nodes);
    for (const auto& d : every_deployment(nodes)) {
      std::optional<serve::ServeResult> res;
      try {
        res = serve::simulate_serving(in.inputs.model, *in.inputs.topology, nullptr, candidate_spec(in.spec, d, o.goal));
      } catch (const core::InputError&) {
        continue;  // does not fit
      }
      const bool meets = res->slo_attainment >= o.goal.attainment;
      const auto text = deployment_text(d, 8);
      if (nodes < answer) {
        EXPECT_FALSE(meets) << nodes << " nodes: " << text << " meets the goal below the answer";
        continue;
      }
      if (!meets) continue;
      const double headroom = std::max(res->ttft.p99 / o.goal.ttft_s, res->tpot.p99 / o.goal.tpot_s);
      if (!best_goodput || res->goodput_requests_per_s > *best_goodput ||
          (res->goodput_requests_per_s == *best_goodput && headroom < *best_headroom)) {
        best_goodput = res->goodput_requests_per_s;
        best_headroom = headroom;
      }
    }
  }
  ASSERT_TRUE(best_goodput.has_value());
  const auto& top = *r.ranked.front().result;
  EXPECT_DOUBLE_EQ(top.goodput_requests_per_s, *best_goodput);
  EXPECT_DOUBLE_EQ(std::max(top.ttft.p99 / o.goal.ttft_s, top.tpot.p99 / o.goal.tpot_s), *best_headroom);

  // Without --exhaustive the search stops at the first round with a deployment that meets the goal: the same size.
  o.exhaustive = false;
  const auto quick = plan_serving(o, on_nodes);
  EXPECT_EQ(quick.chosen_nodes, r.chosen_nodes);
  EXPECT_TRUE(quick.ranked.front().meets);
}

TEST(ServePlan, RulesNameWhatTheyRefuse) {
  // 1 node cannot hold DeepSeek-V3's weights at any attention TP: all 4 deployments are refused by `weights`.
  ServePlanOptions o;
  o.goal = {32, 2.0, 0.1, 0.9};
  o.max_gpus = 8;
  const auto r = plan_serving(o, on_nodes);
  EXPECT_FALSE(r.chosen_nodes.has_value());
  ASSERT_EQ(r.tried.size(), 1u);
  EXPECT_EQ(r.tried[0].candidates, 4u);
  EXPECT_EQ(r.tried[0].simulated, 0u);
  ASSERT_EQ(r.tried[0].pruned.count("weights"), 1u);
  EXPECT_EQ(r.tried[0].pruned.at("weights").candidates, 4u);

  // A TPOT no decode step reaches: 1 ms per token is below one sequence per rank on every deployment.
  o.goal = {32, 2.0, 0.001, 0.9};
  o.max_gpus = 32;
  const auto floor = plan_serving(o, on_nodes);
  EXPECT_FALSE(floor.chosen_nodes.has_value());
  EXPECT_GT(floor.tried.back().pruned.at("tpot floor").candidates, 0u);
  for (const auto& t : floor.tried) EXPECT_EQ(t.simulated, 0u) << t.nodes << " nodes";

  o.goal.attainment = 1.5;
  EXPECT_THROW(plan_serving(o, on_nodes), core::InputError);
}

}  // namespace
}  // namespace k3::sweep
