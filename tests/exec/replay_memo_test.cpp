// Passes replayed flow by flow, shared by fingerprint: the same stage on another block of a symmetric fabric
// shares one replay and gets the outcome its own replay would give; anything the replay depends on changes the
// fingerprint; a pass in flight on another thread is reported, then waited for.
#include <gtest/gtest.h>

#include <future>
#include <stdexcept>
#include <thread>

#include "oracle/fabrics.hpp"
#include "sim/exec/pass_batch.hpp"
#include "sim/exec/pass_runner.hpp"
#include "sim/exec/replay_fingerprint.hpp"
#include "sim/exec/replay_memo.hpp"
#include "sim/net/network_factory.hpp"
#include "sim/net/network_registry.hpp"

namespace k3::exec {
namespace {

constexpr double kPassMiB = 1024.0 * 1024.0;

// DualPipe's F&B shape on 4 GPUs: on each GPU a forward thread computes, then takes part in all-to-all 0;
// a backward thread takes part in all-to-all 1, then computes. The two all-to-alls overlap on the network.
workload::PassProgram fb_pass(std::vector<parallel::GpuIndex> gpus, core::SimTime compute, double bytes) {
  workload::PassProgram p;
  p.gpus = gpus;
  std::vector<int> forward, backward;
  for (int g = 0; g < 4; ++g) {
    forward.push_back(static_cast<int>(p.threads.size()));
    p.threads.push_back({g, {workload::ComputeStep{compute, "dense GEMM"}, workload::IssueStep{0}, workload::WaitStep{0}}});
    backward.push_back(static_cast<int>(p.threads.size()));
    p.threads.push_back({g, {workload::IssueStep{1}, workload::WaitStep{1}, workload::ComputeStep{compute, "dense GEMM"}}});
  }
  for (const auto& threads : {forward, backward}) {
    workload::CollectiveCall call;
    call.kind = workload::CollectiveKind::alltoall;
    call.gpus = gpus;
    call.bytes_per_rank = bytes;
    p.add_collective(call, threads);
  }
  return p;
}

ReplayFingerprint print(const workload::PassProgram& p, const topo::Topology& topology, const net::LinkEfficiency& eff,
                        double slowdown, const PassRunner& runner) {
  std::vector<std::vector<net::CollectiveSpec>> specs;
  for (const auto& call : p.collectives) specs.push_back(runner.specs_of(call));
  return replay_fingerprint(p, specs, topology, net::make_net_links(topology, eff), slowdown);
}

PassRunner flow_runner(const topo::Topology& topology, std::shared_ptr<ReplayMemo> memo) {
  PassRunnerConfig c;
  c.network = &net::network_model("flow", {});
  c.replays = std::move(memo);
  return PassRunner(topology, c);
}

const auto kCompute = core::SimTime::from_us(50);

TEST(ReplayFingerprint, TheSameStageOnAnotherBlockOfASymmetricFabricMatches) {
  // 4 nodes of 2 GPUs on a rail fat tree: the pass on nodes 0-1 (GPUs 0-3) and on nodes 2-3 (GPUs 4-7) cross
  // NVSwitch, PCIe, NIC and rail-leaf links of the same figures in the same pattern.
  const auto topology = oracle::rail_fat_tree(4, 2, 1);
  const auto runner = flow_runner(topology, nullptr);
  const net::LinkEfficiency eff;
  const auto a = print(fb_pass({0, 1, 2, 3}, kCompute, 8 * kPassMiB), topology, eff, 1.0, runner);
  EXPECT_EQ(a, print(fb_pass({4, 5, 6, 7}, kCompute, 8 * kPassMiB), topology, eff, 1.0, runner));
  // Anything the replay depends on moves it: a compute step 1 ps longer, other bytes, a slower NIC class, a
  // compute slowdown, or the GPUs spread one per node (their all-to-all crosses the fabric where the blocks'
  // pairs of the same node meet on NVLink).
  EXPECT_NE(a, print(fb_pass({0, 1, 2, 3}, kCompute + core::SimTime::from_ps(1), 8 * kPassMiB), topology, eff, 1.0, runner));
  EXPECT_NE(a, print(fb_pass({0, 1, 2, 3}, kCompute, 9 * kPassMiB), topology, eff, 1.0, runner));
  net::LinkEfficiency slower_nic;
  slower_nic.set(topo::LinkClass::nic, 0.9);
  EXPECT_NE(a, print(fb_pass({0, 1, 2, 3}, kCompute, 8 * kPassMiB), topology, slower_nic, 1.0, runner));
  EXPECT_NE(a, print(fb_pass({0, 1, 2, 3}, kCompute, 8 * kPassMiB), topology, eff, 1.1, runner));
  EXPECT_NE(a, print(fb_pass({0, 2, 4, 6}, kCompute, 8 * kPassMiB), topology, eff, 1.0, runner));
}

TEST(ReplayMemo, ASharedReplayGivesWhatItsOwnReplayGives) {
  const auto topology = oracle::rail_fat_tree(4, 2, 1);
  const auto memo = std::make_shared<ReplayMemo>();
  const auto shared = flow_runner(topology, memo);
  const auto alone = flow_runner(topology, nullptr);
  const auto first = fb_pass({0, 1, 2, 3}, kCompute, 8 * kPassMiB), second = fb_pass({4, 5, 6, 7}, kCompute, 8 * kPassMiB);
  LinkClassBytes first_bytes, second_bytes, own_bytes;
  const auto a = shared.run(first, &first_bytes);
  const auto b = shared.run(second, &second_bytes);
  EXPECT_EQ(memo->replayed(), 1u);
  EXPECT_EQ(memo->reused(), 1u);
  const auto own = alone.run(second, &own_bytes);
  // Each thread's compute and its all-to-all run one after the other: the pass lasts longer than two compute
  // steps, so the network was replayed, not skipped.
  EXPECT_GT(own.duration, kCompute + kCompute);
  EXPECT_EQ(b.duration, own.duration);
  EXPECT_EQ(b.events, own.events);
  EXPECT_EQ(b.critical_thread, own.critical_thread);
  ASSERT_EQ(b.threads.size(), own.threads.size());
  for (std::size_t t = 0; t < own.threads.size(); ++t) {
    EXPECT_EQ(b.threads[t].finish, own.threads[t].finish) << t;
    EXPECT_EQ(b.threads[t].exposed_comm, own.threads[t].exposed_comm) << t;
  }
  for (std::size_t c = 0; c < own_bytes.bytes.size(); ++c) {
    EXPECT_EQ(second_bytes.bytes[c], own_bytes.bytes[c]) << c;  // summed in first-use order: to the bit
  }
  EXPECT_EQ(a.duration, b.duration);
}

TEST(SoloCollectiveMemo, ACollectiveAloneOnAnotherBlockIsFoundByItsFingerprint) {
  // Passes of one thread per GPU see each collective alone: the all-to-all on GPUs 0-3 is replayed once, and
  // the same on GPUs 4-7 is found by its fingerprint with the duration and bytes of its own replay; other
  // bytes are not.
  const auto topology = oracle::rail_fat_tree(4, 2, 1);
  PassRunnerConfig c;
  c.network = &net::network_model("flow", {});
  c.solo_memo = std::make_shared<SoloCollectiveMemo>();  // shared with other runs: looked up by fingerprint too
  const PassRunner shared(topology, c), alone = flow_runner(topology, nullptr);
  const auto one_thread = [](std::vector<parallel::GpuIndex> gpus, double bytes) {
    workload::PassProgram p;
    p.gpus = gpus;
    for (int g = 0; g < 4; ++g) {
      p.threads.push_back({g, {workload::ComputeStep{kCompute, "dense GEMM"}, workload::IssueStep{0}, workload::WaitStep{0}}});
    }
    workload::CollectiveCall call;
    call.kind = workload::CollectiveKind::alltoall;
    call.gpus = gpus;
    call.bytes_per_rank = bytes;
    p.add_collective(call, {0, 1, 2, 3});
    return p;
  };
  const auto first = one_thread({0, 1, 2, 3}, 8 * kPassMiB);
  LinkClassBytes first_bytes;
  (void)shared.run(first, &first_bytes);
  const auto specs = shared.specs_of(first.collectives[0]);
  const auto links = net::make_net_links(topology, c.efficiency);
  EXPECT_NE(shared.config().solo_memo->find({c.network, collectives_fingerprint(specs, topology, links), 1}), nullptr);
  for (const double bytes : {8 * kPassMiB, 16 * kPassMiB}) {
    const auto other = one_thread({4, 5, 6, 7}, bytes);
    LinkClassBytes shared_bytes, own_bytes;
    EXPECT_EQ(shared.run(other, &shared_bytes).duration, alone.run(other, &own_bytes).duration) << bytes;
    EXPECT_EQ(shared_bytes.bytes, own_bytes.bytes) << bytes;
  }
}

TEST(PassBatch, TriedPassesAndThoseLeftToFinishGiveWhatRunGives) {
  // Two runs sharing a memo, as plan's flow recheck interleaves them: the first batch tries its F&B pass, the
  // second finds the same pass (on GPUs 4-7) replayed and shares it; a pass never tried is run by finish().
  // Every record equals a plain run of its program.
  const auto topology = oracle::rail_fat_tree(4, 2, 1);
  const auto memo = std::make_shared<ReplayMemo>();
  const auto runner = flow_runner(topology, memo);
  const auto alone = flow_runner(topology, nullptr);
  const std::vector<workload::PassProgram> one{fb_pass({0, 1, 2, 3}, kCompute, 8 * kPassMiB),
                                               fb_pass({0, 1, 2, 3}, kCompute, 4 * kPassMiB)};
  PassBatch first(runner, one), second(runner, {fb_pass({4, 5, 6, 7}, kCompute, 8 * kPassMiB)});
  ASSERT_EQ(first.size(), 2u);
  EXPECT_TRUE(first.replays_flows(0));
  first.try_run(0);
  second.try_run(0);
  EXPECT_EQ(memo->replayed(), 1u);
  EXPECT_EQ(memo->reused(), 1u);
  const auto a = first.finish(2);  // runs pass 1, never tried
  const auto b = second.finish(2);
  EXPECT_EQ(memo->replayed(), 2u);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 1u);
  for (std::size_t i = 0; i < one.size(); ++i) {
    LinkClassBytes own_bytes;
    const auto own = alone.run(one[i], &own_bytes);
    EXPECT_EQ(a[i].outcome.duration, own.duration) << i;
    EXPECT_EQ(a[i].bytes.bytes, own_bytes.bytes) << i;
  }
  EXPECT_EQ(b[0].outcome.duration, a[0].outcome.duration);
  // A pass without overlapping collectives sees each alone: not the long kind.
  workload::PassProgram serial = one[0];
  for (auto& t : serial.threads) t.gpu_slot = static_cast<int>(&t - serial.threads.data());
  serial.gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_FALSE(PassBatch(runner, {serial}).replays_flows(0));
}

TEST(ReplayMemo, APassInFlightIsReportedThenWaitedFor) {
  ReplayMemo memo;
  const ReplayMemo::Key key{&net::network_model("flow", {}), {1, 2}};
  std::promise<void> started, release;
  auto gate = release.get_future().share();
  ReplayRecord made;
  made.outcome.duration = core::SimTime::from_us(7);
  std::thread replaying([&] {
    memo.get(key, true, [&] {
      started.set_value();
      gate.wait();
      return made;
    });
  });
  started.get_future().wait();
  bool called = false;
  EXPECT_FALSE(memo.get(key, false, [&] { called = true; return made; }).has_value());
  release.set_value();
  const auto waited = memo.get(key, true, [&] { called = true; return made; });
  replaying.join();
  EXPECT_FALSE(called);
  ASSERT_TRUE(waited.has_value());
  EXPECT_EQ(waited->outcome.duration, made.outcome.duration);
  EXPECT_EQ(memo.replayed(), 1u);
  EXPECT_EQ(memo.reused(), 1u);
}

TEST(ReplayMemo, AFailedReplayFailsEveryoneWhoAsksForIt) {
  ReplayMemo memo;
  const ReplayMemo::Key key{&net::network_model("flow", {}), {3, 4}};
  const auto failing = []() -> ReplayRecord { throw std::runtime_error("collective does not fit"); };
  EXPECT_THROW(memo.get(key, true, failing), std::runtime_error);
  EXPECT_THROW(memo.get(key, true, [] { return ReplayRecord{}; }), std::runtime_error);
}

}  // namespace
}  // namespace k3::exec
