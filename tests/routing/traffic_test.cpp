#include <gtest/gtest.h>

#include <cmath>

#include "model/routing/model_shape.hpp"
#include "model/routing/placement.hpp"
#include "model/routing/traffic.hpp"
#include "model/routing/uniform_traffic.hpp"
#include "core/error.hpp"

using namespace k3::routing;

namespace {
constexpr double kFp8WithScales = 1.0 + 4.0 / 128;  // bytes per dispatch element
}

TEST(Placement, ContiguousStridedAndErrors) {
  const ExpertPlacement contiguous(16, {PlacementKind::contiguous, 4, 2, 0});
  EXPECT_EQ(contiguous.copies(5).front(), 1);  // experts 4..7 on GPU 1
  EXPECT_EQ(contiguous.node_of_gpu(3), 1);
  const ExpertPlacement strided(16, {PlacementKind::strided, 4, 2, 0});
  EXPECT_EQ(strided.copies(5).front(), 1);  // 5 mod 4
  EXPECT_EQ(strided.copies(6).front(), 2);
  EXPECT_THROW(ExpertPlacement(16, {PlacementKind::contiguous, 5, 1, 0}), k3::core::InputError);  // EP ! | n
  EXPECT_THROW(ExpertPlacement(16, {PlacementKind::contiguous, 4, 3, 0}), k3::core::InputError);  // gpn ! | EP
}

TEST(Placement, RedundantCopyOfTheHottestExpertSplitsItsLoad) {
  // 4 experts on 2 GPUs (contiguous), loads 10, 1, 1, 1: GPU loads 11, 2. One redundant copy of expert 0 goes to
  // the least loaded GPU (1), and each copy takes half: GPU 0 = 5 + 1 = 6, GPU 1 = 5 + 2 = 7.
  const std::vector<double> load{10, 1, 1, 1};
  const ExpertPlacement p(4, {PlacementKind::contiguous, 2, 2, 1}, load);
  ASSERT_EQ(p.copies(0).size(), 2u);
  EXPECT_EQ(p.copies(0)[1], 1);
  const auto gpu = p.gpu_load(load);
  EXPECT_DOUBLE_EQ(gpu[0], 6.0);
  EXPECT_DOUBLE_EQ(gpu[1], 7.0);
  // tokens alternate between the copies
  EXPECT_NE(p.gpu_for(0, 0), p.gpu_for(0, 1));
}

TEST(Traffic, ClosedFormByHand) {
  // n = 8, k = 2, G = 4 (2 experts per GPU): 4 (1 - C(6,2)/C(8,2)) = 4 (1 - 15/28) = 52/28.
  EXPECT_NEAR(expected_distinct_groups(8, 2, 4), 52.0 / 28.0, 1e-12);
  EXPECT_NEAR(expected_distinct_groups(8, 1, 4), 1.0, 1e-12);
}

TEST(Traffic, HandExampleFlatAndHierarchical) {
  // 2 nodes x 2 GPUs, one expert per GPU. One token on GPU 0 routed to experts 1, 2, 3 (k = 3), width 128.
  //   flat: GPU 1 over NVLink; GPU 2 over the NIC on the same rail (local index 0); GPU 3 over the NIC, crossing
  //         rails (fabric). -> nvlink 1 copy, nic 2 copies, fabric 1 copy.
  //   deepep: GPU 1 over NVLink; node 1 once over the NIC to GPU 2 (same local index as GPU 0), then NVLink
  //         2 -> 3. -> nvlink 2 copies, nic 1 copy, fabric 0.
  const ExpertPlacement p(4, {PlacementKind::contiguous, 4, 2, 0});
  std::vector<RoutedBatch> batches(4);
  for (auto& b : batches) b.top_k = 3;
  batches[0].tokens = 1;
  batches[0].experts = {1, 2, 3};
  const double d = 128 * kFp8WithScales, c = 128 * 2.0;
  TrafficSpec spec{DispatchAlgorithm::flat, 128};
  const auto flat = compute_traffic(batches, p, spec);
  EXPECT_DOUBLE_EQ(flat.dispatch.nvlink, d);
  EXPECT_DOUBLE_EQ(flat.dispatch.nic, 2 * d);
  EXPECT_DOUBLE_EQ(flat.dispatch.fabric, d);
  EXPECT_DOUBLE_EQ(flat.combine.nic, 2 * c);
  EXPECT_DOUBLE_EQ(flat.dispatch_matrix[0 * 4 + 3], d);
  EXPECT_DOUBLE_EQ(flat.combine_matrix[3 * 4 + 0], c);
  EXPECT_DOUBLE_EQ(flat.distinct_nodes_per_token(), 2.0);
  spec.algorithm = DispatchAlgorithm::hierarchical;
  const auto hier = compute_traffic(batches, p, spec);
  EXPECT_DOUBLE_EQ(hier.dispatch.nvlink, 2 * d);
  EXPECT_DOUBLE_EQ(hier.dispatch.nic, d);
  EXPECT_DOUBLE_EQ(hier.dispatch.fabric, 0.0);
  EXPECT_DOUBLE_EQ(hier.dispatch_matrix[0 * 4 + 2], d);
  EXPECT_DOUBLE_EQ(hier.dispatch_matrix[2 * 4 + 3], d);
  EXPECT_DOUBLE_EQ(hier.combine.nvlink, 2 * c);
}

TEST(TrafficAcceptance, UniformRoutingMatchesClosedFormAndElementsAreEqual) {
  // EP 64 on 8 nodes: distinct GPUs and nodes per token within sampling error (4 sigma of the mean of 32768
  // tokens, per-token sd <= sqrt(k) bounds it; 0.05 is > 4 sigma) of G (1 - C(n - n/G, k)/C(n, k)).
  for (const char* model : {"k3", "k3-448"}) {
    UniformTrafficConfig cfg;
    cfg.shape = load_routing_shape(model, "test");
    cfg.placement = {PlacementKind::contiguous, 64, 8, 0};
    cfg.tokens_per_gpu = 512;
    const auto r = uniform_traffic(cfg);
    const int n = cfg.shape.experts, k = cfg.shape.top_k;
    EXPECT_NEAR(r.distinct_gpus_per_token(), expected_distinct_groups(n, k, 64), 0.05) << model;
    EXPECT_NEAR(r.distinct_nodes_per_token(), expected_distinct_groups(n, k, 8), 0.05) << model;
    // k3 sends 16 x 3584 and k3-448 8 x 7168 elements per token before dedup: both 57,344.
    EXPECT_DOUBLE_EQ(r.elements_per_token(), 57344.0) << model;
    // Bytes follow: every distinct destination GPU gets one dispatch copy (FP8 + scales) and returns one BF16.
    const auto per_token = r.bytes_per_token();
    const double all = per_token.nvlink + per_token.nic + per_token.local;
    EXPECT_NEAR(all, r.distinct_gpus_per_token() * cfg.shape.dispatch_width * (kFp8WithScales + 2.0), 1e-6 * all);
  }
}

TEST(TrafficAcceptance, HierarchicalSendsOneNicCopyPerRemoteNode) {
  UniformTrafficConfig cfg;
  cfg.shape = load_routing_shape("k3", "test");
  cfg.placement = {PlacementKind::contiguous, 32, 8, 0};
  cfg.traffic.algorithm = DispatchAlgorithm::hierarchical;
  cfg.tokens_per_gpu = 256;
  cfg.node_limit = 2;
  const auto r = uniform_traffic(cfg);
  EXPECT_LE(r.distinct_nodes_per_token(), 2.0);
  EXPECT_DOUBLE_EQ(r.dispatch.fabric, 0.0);  // always on the source's rail
  // NIC copies per token = distinct nodes - (share of tokens whose own node is among them); bounded by M.
  const double nic_copies_per_token = r.dispatch.nic / (cfg.shape.dispatch_width * kFp8WithScales) / r.tokens;
  EXPECT_LE(nic_copies_per_token, 2.0);
  EXPECT_GT(nic_copies_per_token, 1.0);
  EXPECT_NEAR(r.node_dedup_factor(), 16.0 / r.distinct_nodes_per_token(), 1e-9);
  cfg.node_limit = 5;  // only 4 nodes
  EXPECT_THROW(uniform_traffic(cfg), k3::core::InputError);
}
