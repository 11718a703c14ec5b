// The step sections come from results::step_to_json: every keyed number equals the JSON at its pointer; the
// Gantt is thinned to a readable, bounded number of tracks and marks; assumptions split into what/source.
#include <gtest/gtest.h>

#include "tests/reports/html_scan.hpp"

#include <fmt/format.h>

#include "reports/sections/goodput.hpp"
#include "reports/sections/step.hpp"
#include "results/goodput_output.hpp"
#include "results/step_output.hpp"

using namespace k3;

namespace {

train::StepResult small_step() {
  train::StepResult r;
  r.scenario = "unit";
  r.model = "m";
  r.topology = "t";
  r.gpus = 16;
  r.step_time_s = 2.0;
  r.tokens_per_step = 1e6;
  r.tokens_per_s = 5e5;
  r.tflops_per_gpu = 300;
  r.mfu = 0.3;
  r.peak_flops_per_s_bf16 = 989e12;
  r.microbatches = 4;
  r.measured_compute_s = {{"GEMM", 1.2}};
  r.breakdown = {{"compute: GEMM", "compute", 1.5}, {"exposed: all-to-all", "communication", 0.3},
                 {"pipeline bubble", "bubble", 0.1}, {"optimizer step", "optimizer", 0.1}};
  r.memory = {{"weights", 40e9}, {"activations", 60e9}};
  r.hbm_bytes = 141e9;
  r.links = {{"nvlink", 1e12, 0.5}, {"nic", 2e11, 0.25}};
  r.cost_per_trillion_tokens = 1234.5;
  r.gpu_hours_per_trillion_tokens = 555;
  return r;
}

std::vector<std::pair<std::string, double>> keyed(const reports::Report& report) {
  return k3::test::keyed_numbers(report.html());
}

}  // namespace

TEST(StepSection, EveryKeyedNumberEqualsTheStepJson) {
  const auto r = small_step();
  const auto json = results::step_to_json(r);
  reports::Report report("step");
  report.add_section("summary", "Summary").cards(reports::step_cards(json));
  reports::add_step_section(report, json);
  int matched = 0;
  for (const auto& [key, shown] : keyed(report)) {
    const nlohmann::json::json_pointer ptr(key);
    ASSERT_TRUE(json.contains(ptr)) << key;
    EXPECT_EQ(shown, json.at(ptr).get<double>()) << key;
    ++matched;
  }
  // 6 cards (priced: cost card) + 4 breakdown seconds + 3 for the one compute category's pricing (its seconds,
  // measured seconds and share) + (2 memory + total + HBM) + 2 links x 2 = 21.
  EXPECT_EQ(matched, 21);
  const std::string html = report.html();
  // MFU 0.3 shown as 30 %, 100e9 B memory as 93.13 GiB (1e11 / 2^30 = 93.13), 1e12 B nvlink as 1 TB.
  EXPECT_NE(html.find(R"(data-value="0.3" data-key="/mfu">30 <span class="unit">%)"), std::string::npos);
  EXPECT_NE(html.find(">93.13 <span class=\"unit\">GiB"), std::string::npos);
  EXPECT_NE(html.find(R"(data-key="/links/0/bytes">1<)"), std::string::npos);
  // 1.2 of 1.5 s of GEMM priced from measurements: 80 %, shown in the pricing table and the paragraph.
  EXPECT_NE(html.find(R"(data-key="/compute_priced_from_measurements/GEMM/measured_share">80<)"), std::string::npos);
  EXPECT_NE(html.find("80.0 % of the critical rank"), std::string::npos);
  // No trace: no timeline section.
  EXPECT_EQ(html.find("id=\"timeline\""), std::string::npos);
}

TEST(StepSection, GanttKeepsEightSpreadRanksAndBoundsMarksPerTrack) {
  // 16 ranks x 3000 back-to-back 1 ms forward spans (3 s), plus one DP span on rank 0.
  std::vector<train::TraceSpan> trace;
  for (int k = 0; k < 16; ++k)
    for (int i = 0; i < 3000; ++i)
      trace.push_back({k, "compute", fmt::format("F mb{}", i), "forward", i * 1e-3, (i + 1) * 1e-3});
  trace.push_back({0, "dp", "optimizer", "optimizer", 3.0, 3.2});
  const auto g = reports::step_gantt(trace);
  // Ranks i * 15 / 7 for i = 0..7: 0 2 4 6 8 10 12 15, plus rank 0's DP track = 9 tracks.
  ASSERT_EQ(g.tracks.size(), 9u);
  EXPECT_EQ(g.tracks[0], "rank 0");
  EXPECT_EQ(g.tracks[1], "rank 0 DP + optimizer");
  EXPECT_EQ(g.tracks[2], "rank 2");
  EXPECT_EQ(g.tracks[8], "rank 15");
  // Back-to-back same-kind spans (gap 0 < half a pixel) merge into one bar per compute track: 8 + 1 marks.
  EXPECT_EQ(g.intervals.size(), 9u);
  EXPECT_EQ(g.intervals[0].label, "F mb0 .. F mb2999 (3000 passes)");
  EXPECT_EQ(g.time_axis.unit, "s");  // 3.2 s step: seconds
}

TEST(StepSection, GanttBinsAlternatingKindsToTheMarkBudget) {
  // 1F1B steady state: forward and backward alternate back to back, so no same-kind neighbours merge.
  // 2000 spans of 1 ms end at 2 s; bins of 2 s / 599 = 3.34 ms hold 3 or 4 spans: 599 bins, one bar each.
  std::vector<train::TraceSpan> trace;
  for (int i = 0; i < 2000; ++i)
    trace.push_back({0, "compute", "P", i % 2 ? "backward" : "forward", i * 1e-3, (i + 1) * 1e-3});
  const auto g = reports::step_gantt(trace);
  EXPECT_EQ(g.intervals.size(), 599u);
  EXPECT_LE(g.intervals.size(), reports::kMaxGanttMarksPerTrack);
  EXPECT_NE(g.intervals[0].label.find("forward"), std::string::npos);
  EXPECT_NE(g.intervals[0].label.find("backward"), std::string::npos);
  EXPECT_EQ(g.time_axis.unit, "s");  // ends at 2 s
}

TEST(StepSection, AssumptionsSplitIntoWhatAndSource) {
  const auto a = reports::split_assumption("BF16 GEMM efficiency 55.0% of 989 TFLOP/s: DeepSeek-V3 report");
  EXPECT_EQ(a.name, "BF16 GEMM efficiency 55.0% of 989 TFLOP/s");
  EXPECT_EQ(a.source, "DeepSeek-V3 report");
  const auto b = reports::split_assumption("optimizer: AdamW moves 30 B per parameter (Moonlight, arXiv:2502.16982)");
  EXPECT_EQ(b.name, "optimizer");
  EXPECT_EQ(b.value, "AdamW moves 30 B per parameter");
  EXPECT_EQ(b.source, "Moonlight, arXiv:2502.16982");
  // The source may hold colons of its own: the first colon after the head splits.
  const auto d = reports::split_assumption("FP8 GEMM efficiency 78.3%: DeepGEMM README: 1550 TFLOP/s (2025)");
  EXPECT_EQ(d.name, "FP8 GEMM efficiency 78.3%");
  EXPECT_EQ(d.source, "DeepGEMM README: 1550 TFLOP/s (2025)");
  // A provenance entry (core::describe): id, value with range and kind, source.
  const auto e = reports::split_assumption("hbm.efficiency = 0.9 (range 0.8 .. 0.93, assumption): copies reach 90%");
  EXPECT_EQ(e.name, "hbm.efficiency");
  EXPECT_EQ(e.value, "0.9 (range 0.8 .. 0.93, assumption)");
  EXPECT_EQ(e.source, "copies reach 90%");
  const auto c = reports::split_assumption("one EP group is simulated per stage");
  EXPECT_EQ(c.name, "one EP group is simulated per stage");
  EXPECT_EQ(c.source, "k3sim model");
}

TEST(StepSection, ComparisonKeysPointIntoEachVariant) {
  auto a = small_step();
  auto b = small_step();
  b.step_time_s = 3.0;
  b.breakdown[0].seconds = 2.5;
  const nlohmann::json doc{{"variants", {results::step_to_json(a), results::step_to_json(b)}}};
  reports::Report report("compare");
  reports::add_step_comparison_section(report, {doc["variants"][0], doc["variants"][1]}, {"a", "b"},
                                       {"/variants/0", "/variants/1"});
  int matched = 0;
  for (const auto& [key, shown] : keyed(report)) {
    const nlohmann::json::json_pointer ptr(key);
    ASSERT_TRUE(doc.contains(ptr)) << key;
    EXPECT_EQ(shown, doc.at(ptr).get<double>()) << key;
    ++matched;
  }
  EXPECT_EQ(matched, 2 * 6);  // six numbers per variant row
  EXPECT_EQ(report.sections().front().charts(), 3);
  EXPECT_NE(report.html().find("b \u00b7 compute"), std::string::npos);  // stacked bar tooltip per variant
}

// Issue 46: compare's goodput section sets two variants' runs side by side, each number keyed into its variant.
TEST(StepSection, GoodputComparisonKeysPointIntoEachVariant) {
  reliability::RecoverySpec spec;
  spec.restart_s = 600;
  reliability::RunFacts facts;
  facts.gpus = 1024;
  facts.step_time_s = 10;
  facts.tokens_per_step = 4e6;
  facts.checkpoint_bytes = 1e12;
  nlohmann::json comparison;
  for (const double gpus : {1024.0, 2048.0}) {
    facts.gpus = gpus;
    comparison["variants"].push_back(
        {{"result", {{"goodput", results::goodput_json(reliability::simulate_goodput(spec, facts, {10, 4, 1}))}}}});
  }
  const std::vector<std::tuple<std::string, const nlohmann::json*, std::string>> steps{
      {"a", &comparison["variants"][0]["result"], "/variants/0"}, {"b", &comparison["variants"][1]["result"], "/variants/1"}};
  reports::Report report("t");
  reports::add_goodput_comparison(report, steps);
  int shown = 0;
  for (const auto& [key, value] : keyed(report)) {
    EXPECT_EQ(value, comparison.at(nlohmann::json::json_pointer(key)).get<double>()) << key;
    ++shown;
  }
  EXPECT_EQ(shown, 4);  // effective training time and goodput of each
  EXPECT_NE(report.html().find("Run time lost per cause"), std::string::npos);
  // Twice the GPUs fail twice as often on the GPU-counted causes: more of the run lost.
  EXPECT_LT(comparison["variants"][1]["result"]["goodput"]["effective_training_time"]["p50"].get<double>(),
            comparison["variants"][0]["result"]["goodput"]["effective_training_time"]["p50"].get<double>());
  // No goodput in any variant: no section.
  reports::Report empty("t");
  const nlohmann::json plain = nlohmann::json::object();
  reports::add_goodput_comparison(empty, {{"a", &plain, "/variants/0"}});
  EXPECT_EQ(empty.html().find("Run time lost per cause"), std::string::npos);
}
