// The expert-load sample's routing half (workload::route_samples) and the rest of sample_moe.
#include "sim/workload/moe_sampling.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace k3::workload {
namespace {

// 64 experts top-4 over an EP group of 16 GPUs on 4 nodes of 4, node limit 2, uniform load: small enough to
// route in milliseconds, with both a node limit and cross-node traffic.
MoeSamplingSpec small_spec() {
  MoeSamplingSpec m;
  m.model_name = "small";
  m.experts = 64;
  m.top_k = 4;
  m.width = 512;
  for (parallel::GpuIndex g = 0; g < 16; ++g) m.group.push_back(g);
  m.gpus_per_node = 4;
  m.node_limit = 2;
  m.balanced = true;
  m.sample_tokens = 32;
  m.distinct_samples = 2;
  return m;
}

void expect_same_matrices(const TrafficMatrix& a, const TrafficMatrix& b) {
  EXPECT_EQ(a.n, b.n);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.node_bytes, b.node_bytes);
}

TEST(MoeSampling, SamplesThatDifferOnlyInTokensBytesOrGpuNumberingShareOneRouting) {
  // Spec b takes a: twice the tokens per GPU, FP8 dispatch bytes, and the group moved 8 nodes up (GPUs
  // 32..47): the routing reads none of these, so the keys are equal, and b sampled on a's routing is b
  // sampled alone, to the bit (the same sums in the same order). A node limit of 3 or another seed is another
  // routing.
  const MoeSamplingSpec a = small_spec();
  MoeSamplingSpec b = a;
  b.tokens_per_gpu = 2 * a.tokens_per_gpu;
  b.dispatch_bytes_per_element = 1.0 + 4.0 / 128;
  for (auto& g : b.group) g += 32;
  ASSERT_EQ(routed_traffic_key(a), routed_traffic_key(b));
  const RoutedTraffic routed = route_samples(a);
  ASSERT_EQ(routed.samples.size(), 2u);
  const MoeSample shared = sample_moe(b, &routed);
  const MoeSample alone = sample_moe(b);
  ASSERT_EQ(shared.layers.size(), alone.layers.size());
  for (std::size_t i = 0; i < alone.layers.size(); ++i) {
    expect_same_matrices(*shared.layers[i].dispatch, *alone.layers[i].dispatch);
    expect_same_matrices(*shared.layers[i].combine, *alone.layers[i].combine);
    expect_same_matrices(*shared.layers[i].dispatch_grad, *alone.layers[i].dispatch_grad);
    EXPECT_EQ(shared.layers[i].routed_factor, alone.layers[i].routed_factor);
  }
  EXPECT_EQ(shared.distinct_gpus_per_token, alone.distinct_gpus_per_token);
  EXPECT_EQ(shared.distinct_nodes_per_token, alone.distinct_nodes_per_token);
  // The node limit holds: a token reaches at most 2 nodes, and with 4 experts on 4 nodes some reach 2.
  EXPECT_LE(alone.distinct_nodes_per_token, 2.0);
  EXPECT_GT(alone.distinct_nodes_per_token, 1.0);

  MoeSamplingSpec c = a;
  c.node_limit = 3;
  EXPECT_NE(routed_traffic_key(a), routed_traffic_key(c));
  MoeSamplingSpec d = a;
  d.seed = 2;
  EXPECT_NE(routed_traffic_key(a), routed_traffic_key(d));
}

}  // namespace
}  // namespace k3::workload
