// Symmetry is an optimisation, not an assumption: on clusters of 16 to 256 GPUs the step simulated with one EP
// block per stage (network_scope: block, the shortcut) and with every block's all-to-all copies running together on
// the whole fabric (network_scope: fabric) takes the same time to the picosecond, where the fabric gives every block
// the same links (a non-blocking rail fat tree, DeepSeek-V3's H800 preset).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_simulator.hpp"

namespace {

double step_time(int nodes, int ep, int node_limit, const char* scope) {
  const std::vector<std::string> sets = {
      "cluster.nodes=" + std::to_string(nodes), "parallel.pp=2", "parallel.ep=" + std::to_string(ep),
      "communication.node_limit=" + std::to_string(node_limit),
      // 4 micro-batches per pipeline: DP = 8 x nodes / PP.
      "batch.global_batch_seqs=" + std::to_string(nodes * 8 / 2 * 4), std::string("network_scope=") + scope};
  auto in = k3::input::load_scenario_inputs(std::string(K3SIM_SOURCE_DIR) + "/scenarios/deepseek-v3-h800-2048.yaml",
                                            sets, "");
  k3::train::StepOptions opt;
  opt.trace = false;
  opt.per_layer = false;
  const auto r = k3::train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
  EXPECT_EQ(r.symmetry.full_fabric, std::string(scope) == "fabric") << nodes << " nodes";
  return r.step_time_s;
}

TEST(SymmetryBothWays, OneBlockAndTheWholeFabricGiveTheSameStepFrom16To256Gpus) {
  struct Size {
    int nodes, ep, node_limit;
  };
  // 16 GPUs: EP 8 inside a node (no node limit); 32 to 256: EP 16 over two nodes, DeepEP's node limit 2.
  for (const Size s : {Size{2, 8, 0}, Size{4, 16, 2}, Size{8, 16, 2}, Size{16, 16, 2}, Size{32, 16, 2}}) {
    EXPECT_EQ(step_time(s.nodes, s.ep, s.node_limit, "block"), step_time(s.nodes, s.ep, s.node_limit, "fabric"))
        << s.nodes * 8 << " GPUs";
  }
}

}  // namespace
