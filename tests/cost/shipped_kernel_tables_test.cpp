// The shipped kernel tables (kernels/profiles/aiconfigurator/) against the database they were imported from, which
// lies in shared/calibration/aiconfigurator beside the checkout: each file is regenerated and must be identical, and
// measured rows read straight from the CSVs come back from the look-up. Skipped, saying why, without shared/.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/text_file.hpp"
#include "sim/cost/kernel_table_import.hpp"
#include "sim/cost/kernel_tables.hpp"

using namespace k3::cost;

namespace {

const std::string kDatabase = std::string(K3SIM_SOURCE_DIR) + "/../shared/calibration/aiconfigurator";
const std::string kShipped = std::string(K3SIM_SOURCE_DIR) + "/kernels/profiles/aiconfigurator/";

#define SKIP_WITHOUT_DATABASE()                                                                              \
  if (!k3::core::path_exists(kDatabase + "/MANIFEST.csv"))                                                  \
  GTEST_SKIP() << "no kernel database at " << kDatabase << " (shared/ is laid beside the checkout in CI)"

double lookup(const KernelTable& t, std::initializer_list<double> point) {
  const std::vector<double> p(point);
  const auto r = t.latency(p);
  return r ? r->latency_us : -1;
}

}  // namespace

class ShippedKernelTables : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedKernelTables, RegenerateIdenticallyAndStayUnderOneMegabyte) {
  SKIP_WITHOUT_DATABASE();
  const std::string path = kShipped + GetParam() + ".json";
  const std::string shipped = k3::core::read_text_file(path, "a shipped kernel table file");
  EXPECT_LT(shipped.size(), 1'000'000u) << path;
  EXPECT_TRUE(import_aiconfigurator(kDatabase, GetParam()).dump() == shipped)
      << path << " differs from a fresh import: run k3sim calibrate --import-kernel-tables " << kDatabase << " --gpu "
      << GetParam() << " --out " << path;
}

INSTANTIATE_TEST_SUITE_P(SixGpus, ShippedKernelTables,
                         ::testing::Values("a100_sxm", "h100_sxm", "h200_sxm", "b200_sxm", "gb200", "gb300"));

// Rows copied from shared/calibration/aiconfigurator/h200_sxm (latency in ms), expected at four significant digits:
// - gemm_perf.csv: sglang_torch_linear,bfloat16,4096,7168,12288 -> read below from the file itself;
// - kda_perf.csv: chunk_kda,context,1,4096,4096,...,96,128,96,128,moonshotai/Kimi-K3,1.57081 -> 1571 us.
TEST(ShippedKernelTablesH200, MeasuredRowsComeBackFromTheLookUp) {
  SKIP_WITHOUT_DATABASE();
  const auto tables = KernelTables::load(kShipped + "h200_sxm.json");
  std::ifstream csv(kDatabase + "/h200_sxm/gemm/sglang/0.5.14/gemm_perf.csv");
  std::string line;
  double want_ms = -1;
  while (std::getline(csv, line)) {
    if (line.rfind("sglang_torch_linear,bfloat16,4096,7168,12288,", 0) == 0) want_ms = std::stod(line.substr(line.rfind(',') + 1));
  }
  ASSERT_GT(want_ms, 0) << "the row is in the database";
  const auto* gemm = tables.find("gemm", {{"kernel_source", "sglang_torch_linear"}, {"gemm_dtype", "bfloat16"}});
  ASSERT_NE(gemm, nullptr);
  EXPECT_NEAR(lookup(*gemm, {4096, 7168, 12288}), want_ms * 1000, want_ms * 1000 * 5e-4);

  const auto* kda = tables.find("kda", {{"kernel_source", "chunk_kda"}, {"phase", "context"}, {"head_k_dim", "128"},
                                        {"head_v_dim", "128"}, {"model_name", "moonshotai/Kimi-K3"}});
  ASSERT_NE(kda, nullptr);
  EXPECT_DOUBLE_EQ(lookup(*kda, {1, 4096, 96}), 1571);

  // comm/sglang/0.5.12/wideep_deepep_normal_perf.csv (times already in us): deepep,1,7168,131072,8,256,24,14647.7,0,
  // 24,27168.5,0 -> dispatch 14650 us and combine 27170 us at 24 SMs and 131,072 tokens per rank (four digits).
  const std::map<std::string, std::string> shape{
      {"node_num", "1"}, {"hidden_size", "7168"}, {"num_topk", "8"}, {"num_experts", "256"}};
  const auto* dispatch = tables.find("deepep_normal_dispatch", shape);
  const auto* combine = tables.find("deepep_normal_combine", shape);
  ASSERT_NE(dispatch, nullptr);
  ASSERT_NE(combine, nullptr);
  EXPECT_DOUBLE_EQ(lookup(*dispatch, {24, 131072}), 14650);
  EXPECT_DOUBLE_EQ(lookup(*combine, {24, 131072}), 27170);
}

// A grouped (fused-MoE) GEMM at 64 tokens per expert is slower per FLOP than at 4,096. The database's BF16 shapes reach
// 4,096 tokens per expert only with few experts: Mixtral's (hidden 4096, FFN 14336, top-2 of 8), balanced, EP 1,
// where tokens per expert = tokens x 2 / 8. moe_perf.csv rows (ms): 256 tokens (64 per expert) 0.753724 -> 753.7 us,
// 2.944 us a token; 16,384 tokens (4,096 per expert) 23.2812 -> 23,280 us, 1.421 us a token. At one shape FLOPs are
// proportional to tokens, so time per token is time per FLOP up to one constant: 2.07x slower at 64 per expert.
TEST(ShippedKernelTablesH200, GroupedGemmAt64TokensPerExpertIsSlowerPerFlopThanAt4096) {
  SKIP_WITHOUT_DATABASE();
  const auto tables = KernelTables::load(kShipped + "h200_sxm.json");
  const auto* moe = tables.find("moe", {{"kernel_source", "sglang_fused_moe_triton"}, {"moe_dtype", "bfloat16"},
                                        {"hidden_size", "4096"}, {"inter_size", "14336"}, {"topk", "2"},
                                        {"num_experts", "8"}, {"moe_ep_size", "1"}, {"distribution", "balanced"}});
  ASSERT_NE(moe, nullptr);
  const double at_64 = lookup(*moe, {256}), at_4096 = lookup(*moe, {16384});
  EXPECT_DOUBLE_EQ(at_64, 753.7);
  EXPECT_DOUBLE_EQ(at_4096, 23280);
  EXPECT_NEAR((at_64 / 256) / (at_4096 / 16384), 2.07, 0.01);
}
