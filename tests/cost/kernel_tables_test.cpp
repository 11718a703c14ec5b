// Kernel tables: look-ups on hand-made grids with every expected latency derived in a comment, the file format's
// round trip and refusals, and the importer on a hand-written miniature of the database.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "sim/cost/kernel_table_import.hpp"
#include "sim/cost/kernel_tables.hpp"

using namespace k3::cost;

namespace {

// A GEMM-like table over m and n: latency 10 us at (1, 1024), 20 at (4, 1024), 40 at (1, 4096), 80 at (4, 4096);
// (16, 4096) measured at 320, (16, 1024) not measured.
KernelTable two_axis_table() {
  KernelTable t;
  t.op_class = "gemm";
  t.keys = {{"gemm_dtype", "bfloat16"}};
  t.axes = {{"m", {1, 4, 16}}, {"n", {1024, 4096}}};
  const double nan = std::nan("");
  t.latency_us = {10, 40, 20, 80, nan, 320};  // row-major, n fastest
  return t;
}

double at(const KernelTable& t, double m, double n) {
  const double p[] = {m, n};
  const auto r = t.latency(p);
  return r ? r->latency_us : -1;
}

}  // namespace

TEST(KernelTables, AMeasuredShapeReturnsItsMeasurement) {
  const auto t = two_axis_table();
  EXPECT_DOUBLE_EQ(at(t, 1, 1024), 10);
  EXPECT_DOUBLE_EQ(at(t, 4, 4096), 80);
  EXPECT_DOUBLE_EQ(at(t, 16, 4096), 320);
}

TEST(KernelTables, BetweenRowsInterpolatesInLogLogAndIsMonotone) {
  const auto t = two_axis_table();
  // m = 2 is halfway from 1 to 4 in log(m): log-latency halfway from log 10 to log 20, i.e. sqrt(200) = 14.1421 us.
  EXPECT_NEAR(at(t, 2, 1024), std::sqrt(200.0), 1e-9);
  // (2, 2048): halfway in both: the geometric mean of the four corners, (10 x 20 x 40 x 80)^(1/4) = 28.2843 us.
  EXPECT_NEAR(at(t, 2, 2048), std::pow(10.0 * 20 * 40 * 80, 0.25), 1e-9);
  double previous = 0;
  for (double m = 1; m <= 4; m *= 1.1) {
    const double v = at(t, m, 3000);
    EXPECT_GT(v, previous) << "m " << m;
    previous = v;
  }
  previous = 0;
  for (double n = 1024; n <= 4096; n *= 1.1) {
    const double v = at(t, 3, n);
    EXPECT_GT(v, previous) << "n " << n;
    previous = v;
  }
}

TEST(KernelTables, OutsideTheRangeFloorsBelowAndContinuesTheLogLogLineAboveFlagged) {
  const auto t = two_axis_table();
  const double below[] = {0.5, 1024};
  const auto b = t.latency(below);
  ASSERT_TRUE(b);
  EXPECT_DOUBLE_EQ(b->latency_us, 10);  // the smallest measured m's latency
  EXPECT_TRUE(b->extrapolated);
  // n = 16384 is 4x the largest measured n: at m = 1, 40 us x 4 = 160 us (the rate at n = 4096 kept).
  const double above[] = {1, 16384};
  const auto a = t.latency(above);
  ASSERT_TRUE(a);
  EXPECT_NEAR(a->latency_us, 160, 1e-9);
  EXPECT_TRUE(a->extrapolated);
  // m = 32 is 2x the largest m at n = 4096, where the last segment of m (4 -> 16: 80 -> 320 us) would also give 2x:
  // 320 x 2 = 640 us; at (2, 16384), 4x n on top of the interpolated sqrt(40 x 80) = 56.57 us: 226.3 us.
  const double above_m[] = {32, 4096};
  EXPECT_NEAR(t.latency(above_m)->latency_us, 640, 1e-9);
  const double above_n[] = {2, 16384};
  EXPECT_NEAR(t.latency(above_n)->latency_us, 4 * std::sqrt(40.0 * 80), 1e-9);
  const double inside[] = {2, 2048};
  EXPECT_FALSE(t.latency(inside)->extrapolated);
}

TEST(KernelTables, AnUnmeasuredCornerGivesNothing) {
  const auto t = two_axis_table();
  EXPECT_LT(at(t, 8, 2048), 0);   // the box (4..16, 1024..4096) has (16, 1024) empty
  EXPECT_DOUBLE_EQ(at(t, 16, 4096), 320);  // a measured cell beside the empty one still answers
  EXPECT_LT(at(t, 0, 1024), 0);   // a non-positive size is no shape
}

TEST(KernelTables, FileRoundTripAndRefusals) {
  KernelTables tables;
  tables.gpu = "H200-SXM";
  tables.device = "NVIDIA H200";
  tables.origin = "test";
  tables.tables.push_back(two_axis_table());
  tables.tables.back().source = {"h200_sxm/gemm/x/1/gemm_perf.csv", "SGLang 1", "all rows", 6, 5};
  tables.index();
  const auto back = KernelTables::from_json(nlohmann::json::parse(tables.dump()), "mem.json");
  ASSERT_EQ(back.tables.size(), 1u);
  const auto* found = back.find("gemm", {{"gemm_dtype", "bfloat16"}});
  ASSERT_NE(found, nullptr);
  EXPECT_DOUBLE_EQ(at(*found, 2, 2048), at(tables.tables[0], 2, 2048));
  EXPECT_EQ(found->source.rows_kept, 5);
  EXPECT_EQ(found->source.file, "h200_sxm/gemm/x/1/gemm_perf.csv");
  EXPECT_EQ(back.find("gemm", {{"gemm_dtype", "fp8"}}), nullptr);

  auto j = nlohmann::json::parse(tables.dump());
  j["tables"][0]["latency_us"][0] = -1;
  EXPECT_THROW(KernelTables::from_json(j, "bad.json"), k3::core::InputError);
  j = nlohmann::json::parse(tables.dump());
  j["tables"][0]["latency_us"].erase(0);
  EXPECT_THROW(KernelTables::from_json(j, "bad.json"), k3::core::InputError);
  j = nlohmann::json::parse(tables.dump());
  j["tables"][0]["axes"][0]["values"] = {4, 1, 16};
  EXPECT_THROW(KernelTables::from_json(j, "bad.json"), k3::core::InputError);
}

namespace {

// A miniature database: MANIFEST.csv and one GEMM file for h200_sxm.
std::string write_database(const std::string& name, const std::string& gemm_csv) {
  const auto dir = std::filesystem::path(K3SIM_BINARY_DIR) / name;
  std::filesystem::create_directories(dir / "h200_sxm/gemm/sglang/0.5.14");
  std::ofstream(dir / "MANIFEST.csv") << "file,rows,constant columns\n"
                                         "h200_sxm/gemm/sglang/0.5.14/gemm_perf.csv,4,framework=SGLang version=0.5.14 "
                                         "device=NVIDIA H200 op_name=gemm\n";
  std::ofstream(dir / "h200_sxm/gemm/sglang/0.5.14/gemm_perf.csv") << gemm_csv;
  return dir.string();
}

std::string import_error(const std::string& dir, const std::string& gpu = "H200-SXM") {
  try {
    import_aiconfigurator(dir, gpu);
  } catch (const k3::core::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(KernelTableImport, KeepsPowersOfTwoDropsUnmeasuredRowsAndConvertsMsToUs) {
  // m = 3 is not a power of two (left out); the 0-latency row is an unmeasured configuration (dropped).
  const auto dir = write_database("kt_db_ok",
                                  "kernel_source,gemm_dtype,m,n,k,latency\n"
                                  "torch,bfloat16,1,1024,1024,0.0123456\n"
                                  "torch,bfloat16,3,1024,1024,0.02\n"
                                  "torch,bfloat16,4,1024,1024,0.05\n"
                                  "torch,bfloat16,8,1024,1024,0\n");
  const auto tables = import_aiconfigurator(dir, "h200_sxm");
  EXPECT_EQ(tables.gpu, "H200-SXM");
  EXPECT_EQ(tables.device, "NVIDIA H200");
  const auto* t = tables.find("gemm", {{"kernel_source", "torch"}, {"gemm_dtype", "bfloat16"}});
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->axes[0].values, (std::vector<double>{1, 4}));
  // 0.0123456 ms = 12.3456 us, rounded to four significant digits: 12.35 us.
  const double p[] = {1, 1024, 1024};
  EXPECT_DOUBLE_EQ(t->latency(p)->latency_us, 12.35);
  EXPECT_EQ(t->source.rows_read, 4);
  EXPECT_EQ(t->source.rows_kept, 2);
  EXPECT_NE(t->source.selection.find("1 rows of latency 0"), std::string::npos);
  EXPECT_EQ(t->source.framework, "SGLang 0.5.14");
}

TEST(KernelTableImport, BadInputNamesFileLineAndColumn) {
  EXPECT_NE(import_error(write_database("kt_db_col", "kernel_source,gemm_dtype,m,n,latency\ntorch,bfloat16,1,1,0.1\n"))
                .find("gemm_perf.csv:1: key 'k': missing column"),
            std::string::npos);
  EXPECT_NE(import_error(write_database("kt_db_nan", "kernel_source,gemm_dtype,m,n,k,latency\ntorch,bfloat16,1,1,1,fast\n"))
                .find("gemm_perf.csv:2: key 'latency': 'fast' is not a number"),
            std::string::npos);
  EXPECT_NE(import_error(write_database("kt_db_neg", "kernel_source,gemm_dtype,m,n,k,latency\n"
                                                     "torch,bfloat16,1,1,1,0.1\ntorch,bfloat16,2,1,1,-0.2\n"))
                .find("gemm_perf.csv:3: key 'latency': negative latency"),
            std::string::npos);
  EXPECT_NE(import_error(write_database("kt_db_gpu", "kernel_source,gemm_dtype,m,n,k,latency\n"), "TPU-v5")
                .find("no kernel tables for GPU 'TPU-v5'"),
            std::string::npos);
  EXPECT_NE(import_error(std::string(K3SIM_BINARY_DIR) + "/kt_no_such_db").find("no MANIFEST.csv"), std::string::npos);
}
