// Ops priced from measured kernel tables through the cost model, on hand-made tables whose expected times are
// derived in the comments; and the share of K3's compute that the shipped H200 tables price.
#include <gtest/gtest.h>

#include <string>
#include <nlohmann/json.hpp>

#include <cmath>

#include "sim/cost/cost_model.hpp"
#include "tests/support/run_k3sim.hpp"

using namespace k3::cost;

namespace {

const DeviceModel kTableH100{"H100-SXM", 989e12, 1979e12, 3.35e12, 132, "test"};

KernelTable table(std::string op_class, std::map<std::string, std::string> keys, std::vector<TableAxis> axes,
                  std::vector<double> latency_us) {
  KernelTable t;
  t.op_class = std::move(op_class);
  t.keys = std::move(keys);
  t.axes = std::move(axes);
  t.latency_us = std::move(latency_us);
  t.source = {"test.csv", "test", "all rows", 0, 0};
  return t;
}

std::shared_ptr<const KernelTables> hand_tables() {
  auto t = std::make_shared<KernelTables>();
  t->gpu = "H100-SXM";
  t->device = "test";
  t->origin = "hand-made";
  // GEMM latency (us) at (m, n, k), m, n, k in {1024, 4096}: 100 + m/1024 + 10 n/1024 + 100 k/1024, distinct per
  // corner: (4096, 1024, 4096) = 100 + 4 + 10 + 400 = 514; (4096, 4096, 1024) = 100 + 4 + 40 + 100 = 244;
  // (1024, 4096, 4096) = 100 + 1 + 40 + 400 = 541.
  std::vector<double> gemm;
  for (double m : {1024.0, 4096.0}) {
    for (double n : {1024.0, 4096.0}) {
      for (double k : {1024.0, 4096.0}) gemm.push_back(100 + m / 1024 + 10 * n / 1024 + 100 * k / 1024);
    }
  }
  t->tables.push_back(table("gemm", {{"kernel_source", "torch"}, {"gemm_dtype", "bfloat16"}},
                            {{"m", {1024, 4096}}, {"n", {1024, 4096}}, {"k", {1024, 4096}}}, gemm));
  // Prefill attention, head dim 128, 8 KV heads: 1,000 us at batch 1, 4,096 tokens, 16 heads (every cell 1,000).
  t->tables.push_back(table("attention_context",
                            {{"kernel_source", "fa3"}, {"attn_dtype", "bfloat16"}, {"kv_cache_dtype", "bfloat16"},
                             {"head_dim", "128"}, {"window_size", "0"}, {"num_key_value_heads", "8"}},
                            {{"batch_size", {1, 2}}, {"isl", {1024, 4096}}, {"num_heads", {8, 16}}},
                            std::vector<double>(8, 1000.0)));
  // The same in FP8 (q, k, v and cache E4M3): 600 us everywhere.
  t->tables.push_back(table("attention_context",
                            {{"kernel_source", "fa3"}, {"attn_dtype", "fp8"}, {"kv_cache_dtype", "fp8"},
                             {"head_dim", "128"}, {"window_size", "0"}, {"num_key_value_heads", "8"}},
                            {{"batch_size", {1, 2}}, {"isl", {1024, 4096}}, {"num_heads", {8, 16}}},
                            std::vector<double>(8, 600.0)));
  // Fused MoE, Mixtral's shape (hidden 4096, FFN 14336, top-2 of 8), EP 1, balanced: 753.7 us at 256 tokens,
  // 23,280 us at 16,384.
  t->tables.push_back(table("moe",
                            {{"kernel_source", "triton"}, {"moe_dtype", "bfloat16"}, {"hidden_size", "4096"},
                             {"inter_size", "14336"}, {"topk", "2"}, {"num_experts", "8"}, {"moe_ep_size", "1"},
                             {"distribution", "balanced"}},
                            {{"num_tokens", {256, 16384}}}, {753.7, 23280}));
  t->index();
  return t;
}

OpCostModel model_with(std::shared_ptr<const KernelTables> tables, k3::core::Provenance& prov) {
  KernelChoice k;
  k.measured = std::move(tables);
  return OpCostModel(kTableH100, nullptr, Precision::bf16, k, prov);
}

// GQA attention, 16 heads over 8 KV heads of 128, one 4,096-token causal sequence. Its FLOPs are the table's at
// (1, 4096, 16): 2 x 16 x 256 x 4096^2 / 2, so its forward is the table's cell; FlashAttention's 2.5x backward.
k3::model::Op gqa_attention_at_table_point() {
  k3::model::Op op;
  op.kind = k3::model::OpKind::AttentionCore;
  op.shape = k3::model::AttentionShape{k3::model::AttentionKind::GQA, 16, 8, 128, 128, 4096, 1, true, 0, 0};
  op.fwd_flops = 2.0 * 16 * 256 * 4096.0 * 4096 / 2;
  op.dgrad_flops = 2.5 * op.fwd_flops;
  return op;
}

}  // namespace

TEST(MeasuredKernels, EachGemmPartIsTheTablesLatencyAtItsOwnShape) {
  k3::core::Provenance prov;
  const auto c = model_with(hand_tables(), prov);
  k3::model::Op op;
  op.kind = k3::model::OpKind::DenseGemm;
  op.shape = k3::model::GemmShape{4096, 1024, 4096};
  op.fwd_flops = op.dgrad_flops = op.wgrad_flops = 2.0 * 4096 * 1024 * 4096;
  const auto t = c.time(op);
  // fwd (m, n, k) = (4096, 1024, 4096): 514 us; dgrad (m, k, n) = (4096, 4096, 1024): 244 us; wgrad (n, k, m) =
  // (1024, 4096, 4096): 541 us (comment above the table).
  EXPECT_NEAR(t.fwd, 514e-6, 1e-12);
  EXPECT_NEAR(t.dgrad, 244e-6, 1e-12);
  EXPECT_NEAR(t.wgrad, 541e-6, 1e-12);
  EXPECT_TRUE(t.measured);
  EXPECT_FALSE(t.extrapolated);
}

TEST(MeasuredKernels, AttentionBackwardIsTwoAndAHalfForwardFlopsAtTheMeasuredRatio) {
  k3::core::Provenance prov;
  const auto c = model_with(hand_tables(), prov);
  const auto op = gqa_attention_at_table_point();
  const auto t = c.time(op);
  EXPECT_NEAR(t.fwd, 1e-3, 1e-12);  // the BF16 table's cell
  // Backward: FlashAttention-3 at 4K, forward 638 and backward 542 TFLOP/s on 2.5x the FLOPs: 2.5 x 638 / 542 =
  // 2.9428 times the forward.
  EXPECT_NEAR(t.dgrad, 1e-3 * 2.5 * 638 / 542, 1e-9);
  EXPECT_TRUE(t.measured);
}

// attention_kernel: fp8 (issue 49): the forward is the FP8 table's cell, 0.6 ms; the backward runs in BF16, so it is
// the BF16 forward's 1 ms times the same 2.9428 as above. Without tables, the forward runs at the FP8 peak.
TEST(MeasuredKernels, Fp8AttentionIsAnFp8ForwardAndABf16Backward) {
  k3::core::Provenance prov;
  KernelChoice k;
  k.measured = hand_tables();
  k.attention = AttentionKernel::flash_fp8;
  const OpCostModel c(kTableH100, nullptr, Precision::bf16, k, prov);
  const auto op = gqa_attention_at_table_point();
  const auto t = c.time(op);
  EXPECT_NEAR(t.fwd, 0.6e-3, 1e-12);
  EXPECT_NEAR(t.dgrad, 1e-3 * 2.5 * 638 / 542, 1e-9);
  bool said = false;
  for (const auto& note : c.notes()) said = said || note.find("attention forward in FP8") != std::string::npos;
  EXPECT_TRUE(said);
  // The roofline: the forward at 1979 / 989 of the BF16 forward's rate, the backward unchanged.
  KernelChoice none;
  const OpCostModel bf16(kTableH100, nullptr, Precision::bf16, none, prov);
  none.attention = AttentionKernel::flash_fp8;
  const OpCostModel fp8(kTableH100, nullptr, Precision::bf16, none, prov);
  EXPECT_NEAR(bf16.time(op).fwd / fp8.time(op).fwd, 1979.0 / 989, 1e-9);
  EXPECT_DOUBLE_EQ(bf16.time(op).dgrad, fp8.time(op).dgrad);
}

TEST(MeasuredKernels, ExpertGemmsRunAtTheFusedKernelsRateAtTheSameTokensPerExpert) {
  k3::core::Provenance prov;
  const auto c = model_with(hand_tables(), prov);
  const auto expert = [&](double tokens_per_expert) {
    k3::model::Op op;
    op.kind = k3::model::OpKind::ExpertGemm;
    op.shape = k3::model::ExpertGemmShape{8, tokens_per_expert, 2 * 14336.0, 4096};
    op.fwd_flops = 2.0 * 8 * tokens_per_expert * 2 * 14336 * 4096;
    return c.time(op).fwd;
  };
  // 64 tokens per expert of 8, top-2: the table at 64 x 8 / 2 = 256 tokens, 753.7 us for 2 x 256 x 2 x 3 x 4096 x
  // 14336 FLOPs (up and down); the op's up-projection is 2 x 512 x 28672 x 4096 FLOPs, 2/3 of them: 502.47 us.
  EXPECT_NEAR(expert(64), 753.7e-6 * 2 / 3, 1e-10);
  // 4,096 per expert: the table at 16,384 tokens, 23,280 us x 2/3 = 15,520 us.
  EXPECT_NEAR(expert(4096), 23280e-6 * 2 / 3, 1e-9);
  // Per FLOP (per token-expert) 64 per expert is slower: 502.47 / 64 against 15,520 / 4,096, 2.07x.
  EXPECT_NEAR((expert(64) / 64) / (expert(4096) / 4096), 2.07, 0.01);
}

TEST(MeasuredKernels, WithoutATableTheRooflineAnswersAndSaysSo) {
  k3::core::Provenance prov;
  const auto c = model_with(hand_tables(), prov);
  k3::model::Op op;
  op.kind = k3::model::OpKind::KdaChunkScan;  // the hand-made tables have no KDA table
  op.shape = k3::model::ScanShape{96, 128, 128, 64, 4096};
  op.fwd_flops = 1e12;
  EXPECT_FALSE(c.time(op).measured);
}

// Issue 41's acceptance: at least 90% of K3's compute time on H200 priced from measurements (the shipped tables).
TEST(MeasuredKernels, MostOfK3sComputeOnH200IsMeasured) {
  const auto r = k3::test::run_k3sim("run " + std::string(K3SIM_SOURCE_DIR) +
                                     "/scenarios/k3-h200-2048.yaml --set network=analytical --json --samples 0");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j.at("measured_compute_share").get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(j.at("compute_priced_from_measurements").at("dense GEMM").at("measured_share").get<double>(), 1.0);
}

namespace {

// A BF16 GEMM table whose m = 1 rows stream weights: (n, k) = (1024, 16384) holds 32 MiB of weights (within L2,
// left out, however fast), (16384, 16384) 512 MiB at 200 us and (32768, 16384) 1 GiB at 360 us. m = 1024 rows are
// not m = 1 and are left out too.
std::shared_ptr<const KernelTables> streaming_tables() {
  auto t = std::make_shared<KernelTables>();
  t->gpu = "H100-SXM";
  t->device = "test";
  t->origin = "hand-made";
  t->tables.push_back(table("gemm", {{"kernel_source", "torch"}, {"gemm_dtype", "bfloat16"}},
                            {{"m", {1, 1024}}, {"n", {1024, 16384, 32768}}, {"k", {16384}}},
                            {1, 200, 360, 1, 1, 1}));
  t->index();
  return t;
}

}  // namespace

TEST(MeasuredKernels, HbmStreamShareIsTheMedianOfLargeMatrixVectorProducts) {
  const auto share = hbm_stream_share(*streaming_tables(), 3.35e12);
  ASSERT_TRUE(share.has_value());
  // Bytes 2 (n k + k + n): (16384, 16384): 536,936,448 B in 200 us = 2.6847 TB/s = 0.80140 of 3.35;
  // (32768, 16384): 1,073,840,128 B in 360 us = 2.9829 TB/s = 0.89041. Median of two = their mean, 0.84590.
  const double a = 2.0 * (16384.0 * 16384 + 16384 + 16384) / 200e-6 / 3.35e12;
  const double b = 2.0 * (32768.0 * 16384 + 16384 + 32768) / 360e-6 / 3.35e12;
  EXPECT_NEAR(a, 0.80140, 1e-5);
  EXPECT_NEAR(b, 0.89041, 1e-5);
  EXPECT_NEAR(share->nominal, (a + b) / 2, 1e-12);
  EXPECT_NEAR(share->low, a, 1e-12);
  EXPECT_NEAR(share->high, b, 1e-12);
}

TEST(MeasuredKernels, MemoryBoundOpsStreamAtTheMeasuredShareAndCountAsMeasured) {
  k3::core::Provenance prov;
  const auto c = model_with(streaming_tables(), prov);
  EXPECT_EQ(prov.entry("hbm.efficiency").kind, k3::core::SourceKind::kernel_measurement);
  k3::model::Op op;
  op.kind = k3::model::OpKind::Norm;
  op.read_bytes = op.write_bytes = 0.5e9;
  const auto t = c.time(op);
  // 1 GB at 0.84590 x 3.35 TB/s = 2.8338 TB/s: 352.9 us forward; the backward moves twice the bytes.
  const double share = prov.value("hbm.efficiency");
  EXPECT_NEAR(t.fwd, 1e9 / (share * 3.35e12), 1e-12);
  EXPECT_NEAR(t.fwd, 352.9e-6, 0.1e-6);
  EXPECT_NEAR(t.dgrad, 2 * t.fwd, 1e-12);
  EXPECT_TRUE(t.measured);
}

TEST(MeasuredKernels, WithoutStreamingRowsTheHbmShareStaysAnAssumption) {
  // hand_tables' GEMM starts at m = 1024: no matrix-vector rows (m <= 16), so the 0.90 assumption stands and the op is roofline.
  k3::core::Provenance prov;
  const auto c = model_with(hand_tables(), prov);
  EXPECT_EQ(prov.entry("hbm.efficiency").kind, k3::core::SourceKind::assumption);
  EXPECT_DOUBLE_EQ(prov.value("hbm.efficiency"), 0.90);
  k3::model::Op op;
  op.kind = k3::model::OpKind::Norm;
  op.read_bytes = 1e9;
  EXPECT_FALSE(c.time(op).measured);
}

// K3's KDA at a measured row of the shipped H200 table: chunk_kda, one sequence of 4,096 tokens, 96 heads of 128 ->
// 1,571 us (kda_perf.csv 1.57081 ms, four significant digits in the shipped table). An op whose FLOPs are the table's
// own count at that shape, 4096 x 96 x (6 x 128^2 + 3 x 64 x 128 + 64^2) (model/ops.hpp), takes exactly that row.
TEST(MeasuredKernels, K3sKdaAtAMeasuredTokenCountIsThatRow) {
  k3::core::Provenance prov;
  KernelChoice k;
  k.measured = shipped_kernel_tables_of("H200-SXM");
  ASSERT_NE(k.measured, nullptr);
  const OpCostModel c({"H200-SXM", 990e12, 1979e12, 4.8e12, 132, "test"}, nullptr, Precision::bf16, k, prov);
  k3::model::Op op;
  op.kind = k3::model::OpKind::KdaChunkScan;
  op.shape = k3::model::ScanShape{96, 128, 128, 64, 4096};
  op.fwd_flops = 4096.0 * 96 * (6 * 128 * 128 + 3 * 64 * 128 + 64 * 64);
  const auto t = c.time(op);
  EXPECT_NEAR(t.fwd, 1571e-6, 1e-12);
  EXPECT_TRUE(t.measured);
  EXPECT_FALSE(t.extrapolated);
}

// With tables the roofline's compute rates price only what no table covers, and the registry says so; without tables
// they are the price itself and carry no such mark. The HBM share from the tables is a measurement either way.
TEST(MeasuredKernels, TheRooflineRatesAreMarkedAsFallbackWhereTablesPrice) {
  const std::string mark = "roofline, not measured";
  k3::core::Provenance with_tables, without;
  (void)model_with(hand_tables(), with_tables);
  (void)model_with(nullptr, without);
  for (const char* id : {"gemm.bf16.efficiency", "attention.fwd.efficiency", "attention.bwd.efficiency",
                         "kda.efficiency", "gemm.fp8.efficiency"}) {
    EXPECT_EQ(with_tables.entry(id).source.rfind(mark, 0), 0u) << id;
    EXPECT_EQ(without.entry(id).source.find(mark), std::string::npos) << id;
  }
  EXPECT_EQ(with_tables.entry("hbm.efficiency").source.find(mark), std::string::npos);
}

// MXFP8 GEMMs are priced from DeepGEMM's block-scaled FP8 table (UE8M0 scales on Blackwell's block-scaled MMA), even
// where FP8 GEMMs are not fine-grained; without that table they have none. A hand table: 250 us at every corner of
// m, n, k in {1024, 4096}, so (2048, 2048, 2048) reads 250 us.
TEST(MeasuredKernels, Mxfp8GemmsAreTheBlockScaledFp8Table) {
  auto tables = std::make_shared<KernelTables>(*hand_tables());
  tables->tables.push_back(table("gemm", {{"kernel_source", "deepgemm"}, {"gemm_dtype", "fp8_block"}},
                                 {{"m", {1024, 4096}}, {"n", {1024, 4096}}, {"k", {1024, 4096}}},
                                 std::vector<double>(8, 250.0)));
  tables->index();
  k3::core::Provenance prov;
  const MeasuredKernels coarse(*tables, false, prov);
  const auto mx = coarse.gemm(2048, 2048, 2048, Precision::mxfp8);
  ASSERT_TRUE(mx.has_value());
  EXPECT_NEAR(mx->seconds, 250e-6, 1e-12);
  EXPECT_FALSE(coarse.gemm(2048, 2048, 2048, Precision::fp8).has_value());  // not fine-grained: not this table
  k3::core::Provenance prov2;
  const MeasuredKernels without(*hand_tables(), true, prov2);
  EXPECT_FALSE(without.gemm(2048, 2048, 2048, Precision::mxfp8).has_value());
}
