// Host time per module from a hand-written Kineto trace, every figure derived in the comments.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "sim/cost/host_trace.hpp"

namespace k3::cost {
namespace {

nlohmann::json x(const char* cat, const char* name, int pid, int tid, double ts, double dur, long long corr = -1) {
  nlohmann::json e{{"ph", "X"}, {"cat", cat}, {"name", name}, {"pid", pid}, {"tid", tid}, {"ts", ts}, {"dur", dur}};
  if (corr >= 0) e["args"] = {{"correlation", corr}};
  return e;
}

// Host process 1 (threads 10 and 11), device 0. Times in microseconds.
//   step [0,1000) holds the modules, so it is not one.
//   attn(F) [100,300): aten::linear [100,150) launching corr 1 at [120,130) -> kernel [130,200);
//     aten::mm [160,200) launching corr 2 at [170,175) -> kernel [180,420).
//   dispatch(F) [300,700): notify launch corr 3 at [300,310) -> kernel [310,600) on stream 27; the host then spins unmarked
//     until 605; aten::copy [605,640) launching corr 4 at [610,620) -> kernel [620,650);
//     cudaStreamSynchronize [640,660).
//   attn(F) [700,800), its work on thread 11: aten::linear [700,790) launching corr 5 at [710,715) -> [715,735).
//   A launch at 900 (corr 6) lies in step only: outside every module.
nlohmann::json hand_trace() {
  nlohmann::json ev = nlohmann::json::array();
  ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "python3"}}}});
  ev.push_back(x("user_annotation", "step", 1, 10, 0, 1000));
  ev.push_back(x("user_annotation", "attn(F)", 1, 10, 100, 200));
  ev.push_back(x("user_annotation", "dispatch(F)", 1, 10, 300, 400));
  ev.push_back(x("user_annotation", "attn(F)", 1, 10, 700, 100));
  ev.push_back(x("cpu_op", "aten::linear", 1, 10, 100, 50));
  ev.push_back(x("cuda_runtime", "cudaLaunchKernel", 1, 10, 120, 10, 1));
  ev.push_back(x("kernel", "gemm", 0, 7, 130, 70, 1));
  ev.push_back(x("cpu_op", "aten::mm", 1, 10, 160, 40));
  ev.push_back(x("cuda_runtime", "cudaLaunchKernel", 1, 10, 170, 5, 2));
  ev.push_back(x("kernel", "gemm", 0, 7, 180, 240, 2));
  ev.push_back(x("cuda_runtime", "cudaLaunchKernelExC", 1, 10, 300, 10, 3));
  ev.push_back(x("kernel", "notify_dispatch", 0, 27, 310, 290, 3));
  ev.push_back(x("cpu_op", "aten::copy_", 1, 10, 605, 35));
  ev.push_back(x("cuda_runtime", "cudaLaunchKernel", 1, 10, 610, 10, 4));
  ev.push_back(x("kernel", "dispatch", 0, 7, 620, 30, 4));
  ev.push_back(x("cuda_runtime", "cudaStreamSynchronize", 1, 10, 640, 20));
  ev.push_back(x("cpu_op", "aten::linear", 1, 11, 700, 90));
  ev.push_back(x("cuda_runtime", "cudaLaunchKernel", 1, 11, 710, 5, 5));
  ev.push_back(x("kernel", "gemm", 0, 7, 715, 20, 5));
  ev.push_back(x("cuda_runtime", "cudaLaunchKernel", 1, 10, 900, 5, 6));
  ev.push_back(x("kernel", "gemm", 0, 7, 905, 20, 6));
  return {{"traceName", "hand"}, {"traceEvents", ev}};
}

TEST(HostTrace, ModulesOfAHandWrittenTrace) {
  const auto p = import_host_trace(hand_trace(), "hand.json", HostTraceOptions{});
  ASSERT_EQ(p.modules.size(), 2u);
  EXPECT_EQ(p.launches_outside, 1);
  EXPECT_EQ(p.source, "hand.json (hand)");

  // attn(F): two runs, three launches (1.5 per run). Span 200 + 100 = 300. Busy [100,150) + [160,200) + [700,790)
  // = 90 + 90 = 180 (thread 11's op counts: the same process). Gaps [150,160), [200,300), [790,800) = 120, none a
  // wait (window 100 us): the first and last are no longer than the window; after the second the op launched last
  // (kernel 2) ends at 420, 120 us after the host resumed. Launch calls 10 + 5 + 5. GPU 70 + 240 + 20 = 330.
  // Host per launch 300 / 3 = 100.
  const auto& attn = p.modules[0];
  EXPECT_EQ(attn.name, "attn(F)");
  EXPECT_EQ(attn.occurrences, 2);
  EXPECT_EQ(attn.launches, 3);
  EXPECT_DOUBLE_EQ(attn.kernels_per_occurrence(), 1.5);
  EXPECT_DOUBLE_EQ(attn.span_us, 300);
  EXPECT_DOUBLE_EQ(attn.busy_us, 180);
  EXPECT_DOUBLE_EQ(attn.gap_us, 120);
  EXPECT_DOUBLE_EQ(attn.device_wait_us, 0);
  EXPECT_DOUBLE_EQ(attn.launch_api_us, 20);
  EXPECT_DOUBLE_EQ(attn.gpu_us, 330);
  EXPECT_DOUBLE_EQ(attn.host_us_per_launch(), 100);

  // dispatch(F): span 400. Busy [300,310) + [605,640) + [640,660) = 65. The gap [310,605), 295 us, ends 5 us after
  // the op launched last before it (the notify kernel) ends at 600: a wait. The gap [660,700) is framework time,
  // 40 (no longer than the window). 65 + 295 + 40 = 400. Sync call 20; launch calls 10 + 10; GPU 290 + 30.
  // Host per launch (400 - 295 - 20) / 2 = 42.5.
  const auto& dispatch = p.modules[1];
  EXPECT_EQ(dispatch.name, "dispatch(F)");
  EXPECT_EQ(dispatch.launches, 2);
  EXPECT_DOUBLE_EQ(dispatch.busy_us, 65);
  EXPECT_DOUBLE_EQ(dispatch.device_wait_us, 295);
  EXPECT_DOUBLE_EQ(dispatch.gap_us, 40);
  EXPECT_DOUBLE_EQ(dispatch.sync_api_us, 20);
  EXPECT_DOUBLE_EQ(dispatch.launch_api_us, 20);
  EXPECT_DOUBLE_EQ(dispatch.gpu_us, 320);
  EXPECT_DOUBLE_EQ(dispatch.host_us_per_launch(), 42.5);
}

TEST(HostTrace, AShorterResumeWindowTurnsTheSpinIntoFrameworkTime) {
  // The host resumed 5 us after the notify kernel ended: with a 4 us window that gap is framework time.
  const auto p = import_host_trace(hand_trace(), "hand.json", HostTraceOptions{4});  // 295 us > 4 us, 5 us > 4 us
  EXPECT_DOUBLE_EQ(p.modules[1].device_wait_us, 0);
  EXPECT_DOUBLE_EQ(p.modules[1].gap_us, 295 + 40);
}

TEST(HostTrace, ATraceWithNothingToCalibrateFromIsAnInputError) {
  auto no_ranges = hand_trace();
  auto& ev = no_ranges["traceEvents"];
  ev.erase(std::remove_if(ev.begin(), ev.end(), [](const nlohmann::json& e) { return e.value("cat", "") == "user_annotation"; }),
           ev.end());
  EXPECT_THROW(import_host_trace(no_ranges, "t.json", {}), core::InputError);
  EXPECT_THROW(import_host_trace(nlohmann::json{{"traceEvents", 3}}, "t.json", {}), core::InputError);
  EXPECT_THROW(import_host_trace(nlohmann::json{{"events", nlohmann::json::array()}}, "t.json", {}), core::InputError);
  try {
    import_host_trace(no_ranges, "t.json", {});
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, "t.json");
    EXPECT_EQ(e.where().key, "traceEvents");
  }
}

}  // namespace
}  // namespace k3::cost
