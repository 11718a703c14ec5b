// `run --trace` below whole passes: DeepSeek-V3 on 2,048 H800 traced op by op, read back as trace-event JSON.
// Each GPU of the simulated group has its compute stream and its collective streams as separate tracks, and
// inside DualPipe's F&B pass one micro-batch's dispatch runs while the other micro-batch computes.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "results/step_output.hpp"
#include "sim/input/scenario_inputs.hpp"
#include "sim/train/step_simulator.hpp"

namespace k3 {
namespace {

// The scenario as shipped (flow network): it replays the F&B pass GPU by GPU, where the analytical network
// simulates one GPU's threads against the group by symmetry. Per-layer results are left out to keep it fast.
const nlohmann::json& dsv3_trace() {
  static const nlohmann::json trace = [] {
    auto scenario = input::load_scenario(std::string(K3SIM_SOURCE_DIR) + "/scenarios/deepseek-v3-h800-2048.yaml");
    auto in = input::resolve_scenario(std::move(scenario), "");
    train::StepOptions opt;
    opt.op_trace = true;
    opt.per_layer = false;
    const auto r = train::simulate_step(in.scenario, in.model, *in.topology, in.profile_or_null(), opt);
    // Through the text, as a trace viewer reads it.
    return nlohmann::json::parse(results::step_trace(r).dump());
  }();
  return trace;
}

struct Slice {
  std::string micro_batch;
  double start_us, end_us;
};

// Slices of the F&B pass by (pid, track name).
std::map<std::pair<int, std::string>, std::vector<Slice>> fb_slices() {
  std::map<std::pair<int, int>, std::string> track_names;
  for (const auto& e : dsv3_trace().at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name")
      track_names[{e.at("pid").get<int>(), e.at("tid").get<int>()}] = e.at("args").at("name").get<std::string>();
  }
  std::map<std::pair<int, std::string>, std::vector<Slice>> out;
  for (const auto& e : dsv3_trace().at("traceEvents")) {
    if (e.at("ph") != "X" || !e.contains("args") || !e.at("args").contains("pass_kind")) continue;
    if (e.at("args").at("pass_kind") != "F&B") continue;
    const int pid = e.at("pid").get<int>();
    const auto name = track_names.at({pid, e.at("tid").get<int>()});
    const double ts = e.at("ts").get<double>();
    out[{pid, name}].push_back({e.at("args").at("micro_batch").get<std::string>(), ts, ts + e.at("dur").get<double>()});
  }
  return out;
}

TEST(OpTrace, EveryGpuHasSeparateComputeAndCommunicationTracks) {
  const auto slices = fb_slices();
  std::map<int, std::set<std::string>> tracks;
  for (const auto& [key, list] : slices) tracks[key.first].insert(key.second);
  ASSERT_EQ(tracks.size(), 64u) << "DeepSeek-V3's EP group is 64 GPUs";
  for (const auto& [pid, names] : tracks) {
    EXPECT_TRUE(names.count("compute stream")) << "GPU track " << pid;
    EXPECT_TRUE(names.count("all-to-all dispatch stream")) << "GPU track " << pid;
    EXPECT_TRUE(names.count("all-to-all combine stream")) << "GPU track " << pid;
  }
}

TEST(OpTrace, DispatchOfOneMicroBatchOverlapsComputeOfTheOtherInsideFAndB) {
  const auto slices = fb_slices();
  int gpus_with_overlap = 0;
  for (const auto& [key, dispatches] : slices) {
    if (key.second != "all-to-all dispatch stream") continue;
    const auto& compute = slices.at({key.first, "compute stream"});
    bool overlap = false;
    for (const auto& d : dispatches)
      for (const auto& c : compute)
        overlap = overlap || (d.micro_batch != c.micro_batch && d.start_us < c.end_us && c.start_us < d.end_us);
    gpus_with_overlap += overlap ? 1 : 0;
  }
  EXPECT_EQ(gpus_with_overlap, 64) << "every GPU of the group hides a dispatch behind the other micro-batch's compute";
}

TEST(OpTrace, FlowsLinkEachCollectiveAcrossGpusAndLinksHaveCounters) {
  std::map<std::uint64_t, std::set<int>> flow_pids;
  std::map<std::uint64_t, int> starts, finishes;
  int counters = 0;
  for (const auto& e : dsv3_trace().at("traceEvents")) {
    const auto ph = e.at("ph").get<std::string>();
    if (ph == "s" || ph == "f") {
      const auto id = e.at("id").get<std::uint64_t>();
      flow_pids[id].insert(e.at("pid").get<int>());
      ++(ph == "s" ? starts : finishes)[id];
    }
    if (ph == "C") {
      ++counters;
      for (const auto& [cls, pct] : e.at("args").items()) {
        EXPECT_GE(pct.get<double>(), 0) << cls;
        EXPECT_LE(pct.get<double>(), 100) << cls << ": a mean utilisation over 100% is a normalisation error";
      }
    }
  }
  ASSERT_FALSE(flow_pids.empty());
  for (const auto& [id, pids] : flow_pids) {
    EXPECT_EQ(pids.size(), 2u) << "flow " << id << " joins two GPUs";
    EXPECT_EQ(starts[id], 1) << id;
    EXPECT_EQ(finishes[id], 1) << id;
  }
  EXPECT_GE(counters, 2);
}

}  // namespace
}  // namespace k3
