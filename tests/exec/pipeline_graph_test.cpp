#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/exec/pipeline_graph.hpp"
#include "sim/parallel/schedule_registry.hpp"

using k3::core::SimTime;
using namespace k3::parallel;

namespace {

SimTime micros(double x) { return SimTime::from_us(x); }

k3::parallel::PassCosts uniform_costs(double f, double b, double w, double fb, double p2p = 0.0) {
  k3::parallel::PassCosts c;
  c.forward = [=](int, int) { return micros(f); };
  c.backward = [=](int, int) { return micros(b); };
  c.weight = [=](int, int) { return micros(w); };
  c.forward_backward = [=](int, int, int) { return micros(fb); };
  c.p2p = [=](int, int) { return micros(p2p); };
  return c;
}

// The schedule as a step graph of its passes and sends, run on the engine.
PipelineTimeline execute_pipeline(const PipelineSchedule& s, const PassCosts& costs, bool with_passes = true) {
  return k3::exec::run_pipeline(s, {costs, {}}, nullptr, with_passes);
}

}  // namespace

TEST(PipelineSchedule, OneFOneBBubbleMatchesClosedForm) {
  // PP = 4, m = 8, F = 1 us, B = 2 us, no transfer time.
  // 1F1B makespan = (m + PP - 1)(F + B) = 11 x 3 = 33 us; every rank idles (PP - 1)(F + B) = 9 us.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("1f1b", {}), 4, 1, 8);
  const auto t = execute_pipeline(s, uniform_costs(1, 2, 0.5, 3));
  EXPECT_EQ(t.makespan, micros(33));
  for (int r = 0; r < 4; ++r) EXPECT_EQ(t.bubble(r), micros(9)) << "rank " << r;
}

TEST(PipelineSchedule, GradientAccumulationFillsAndDrainsEachSchedule) {
  // The schedule above as 2 accumulation steps of 4 micro-batches each: each repetition is a 1F1B of m = 4,
  // (4 + 3) x 3 = 21 us, and the second starts on each rank when its first is done: the makespan is
  // (m + N (PP - 1))(F + B) = (8 + 2 x 3) x 3 = 42 us, every rank idling 2 x 9 = 18 us.
  auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("1f1b", {}), 4, 1, 4);
  k3::parallel::repeat_schedule(s, 2);
  EXPECT_EQ(s.microbatches, 8);
  const auto t = execute_pipeline(s, uniform_costs(1, 2, 0.5, 3));
  EXPECT_EQ(t.makespan, micros(42));
  for (int r = 0; r < 4; ++r) EXPECT_EQ(t.bubble(r), micros(18)) << "rank " << r;
}

TEST(PipelineSchedule, TransfersDelayDependentPasses) {
  // PP = 2, one micro-batch, p2p time x = 0.25 us: F on rank 0 (1), send (x), F on rank 1 (1), B on rank 1
  // (2), send back (x), B on rank 0 (2): makespan = 1 + x + 1 + 2 + x + 2 = 6.5 us.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("1f1b", {}), 2, 1, 1);
  const auto t = execute_pipeline(s, uniform_costs(1, 2, 0.5, 3, 0.25));
  EXPECT_EQ(t.makespan, micros(6.5));
}

TEST(PipelineSchedule, BlockingSendsHoldTheSender) {
  // PP = 2, m = 2, F = 1, B = 2, p2p x = 0.5 us. Rank 0 runs F0 F1 B0 B1, rank 1 F0 B0 F1 B1.
  // Overlapped sends: r0 F0 0-1, F1 1-2; r1 F0 1.5-2.5, B0 2.5-4.5, F1 4.5-5.5, B1 5.5-7.5; r0 B0 from 5
  // (4.5 + x) to 7, B1 from 8 (7.5 + x) to 10: makespan 10 us.
  // Blocking: every send also holds its sender x. r0 F0 0-1 (+x), F1 1.5-2.5 (+x); r1 F0 1.5-2.5, B0 2.5-4.5
  // (+x), F1 5-6 (its input came at 3), B1 6-8 (+x); r0 B0 5-7, B1 from 8.5 to 10.5: makespan 10.5 us, and
  // each rank spent 2 x 0.5 = 1 us sending, so rank 0's bubble is 10.5 - 6 - 1 = 3.5 us.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("1f1b", {}), 2, 1, 2);
  auto costs = uniform_costs(1, 2, 0.5, 3, 0.5);
  EXPECT_EQ(execute_pipeline(s, costs).makespan, micros(10));
  costs.blocking_p2p = true;
  const auto t = execute_pipeline(s, costs);
  EXPECT_EQ(t.makespan, micros(10.5));
  EXPECT_EQ(t.sending[0], micros(1));
  EXPECT_EQ(t.sending[1], micros(1));
  EXPECT_EQ(t.bubble(0), micros(3.5));
}

TEST(PipelineSchedule, InterleavedBubbleShrinksByVirtualStages) {
  // Megatron-LM (SC21 eq. 3): bubble = (PP - 1)(F + B) / v with F, B the costs of a rank's whole model
  // part. Per chunk f = 1, b = 2 with v = 2 chunks: F = 2, B = 4, bubble = 3 x 6 / 2 = 9 us, against
  // 18 us for plain 1F1B with the same per-rank work; makespan = m (F + B) + bubble = 8 x 6 + 9 = 57 us.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("interleaved", {}), 4, 2, 8);
  const auto t = execute_pipeline(s, uniform_costs(1, 2, 0.5, 3));
  EXPECT_EQ(t.makespan, micros(57));
  for (int r = 0; r < 4; ++r) EXPECT_EQ(t.bubble(r), micros(9)) << "rank " << r;
}

TEST(PipelineSchedule, DualPipeBubbleMatchesClosedForm) {
  // DualPipe (deepseek-ai/DualPipe README): bubble = (PP/2 - 1)(F&B + B - 3W), B a full backward.
  // Equal pass costs as the zero-bubble papers count them: F = B(input) = W = 1 us, so B = 2 us, and an
  // overlapped F&B that saves nothing, F&B = F + B = 3 us. Bubble = (PP/2 - 1)(3 + 2 - 3) = 2 (PP/2 - 1):
  // 2 us at PP = 4 and 6 us at PP = 8, on every rank. Each rank runs 20 micro-batches' F and B (all
  // directions): 20 x 3 = 60 us of work.
  for (int pp : {4, 8}) {
    const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("dualpipe", {}), pp, 1, 20);
    const auto t = execute_pipeline(s, uniform_costs(1, 2, 1, 3));
    for (int r = 0; r < pp; ++r) {
      EXPECT_EQ(t.busy[static_cast<std::size_t>(r)], micros(60)) << "PP " << pp << " rank " << r;
      EXPECT_EQ(t.bubble(r), micros(2.0 * (pp / 2 - 1))) << "PP " << pp << " rank " << r;
    }
  }
}

TEST(PipelineSchedule, DualPipeOverlapShrinksTheBubbleOfTheMiddleRanks) {
  // When F&B overlap saves 0.5 us (F&B = 2.5 us), the formula gives (8/2 - 1)(2.5 + 2 - 3) = 4.5 us at
  // PP = 8: the middle ranks, which the schedule keeps busiest, meet it exactly; the outer ranks idle less.
  const auto s = k3::parallel::make_schedule(k3::parallel::pipeline_schedule("dualpipe", {}), 8, 1, 20);
  const auto t = execute_pipeline(s, uniform_costs(1, 2, 1, 2.5));
  EXPECT_EQ(t.bubble(3), micros(4.5));
  EXPECT_EQ(t.bubble(4), micros(4.5));
  for (int r = 0; r < 8; ++r) EXPECT_LE(t.bubble(r), micros(4.5));
}

TEST(PipelineSchedule, TheAllToAllOverlapPairsEachBackwardWithTheNextForward) {
  // 1F1B, PP 2, 4 micro-batches. Rank 0: F0 F1 B0 F2 B1 F3 B2 B3 becomes F0 F1 [B0&F2] [B1&F3] B2 B3; rank 1 (the
  // last stage): F0 B0 F1 B1 F2 B2 F3 B3 becomes F0 [B0&F1] [B1&F2] [B2&F3] B3 (B0 needs F0, done before).
  auto s = make_schedule(pipeline_schedule("1f1b", {}), 2, 1, 4);
  merge_steady_state(s);
  const auto kinds = [&](int r) {
    std::string out;
    for (const auto& p : s.passes[static_cast<std::size_t>(r)]) out += to_string(p.kind) + " ";
    return out;
  };
  EXPECT_EQ(kinds(0), "F F F&B F&B B B ");
  EXPECT_EQ(kinds(1), "F F&B F&B F&B B ");
  EXPECT_EQ(s.passes[1][1].work.microbatch, 1);      // the forward of micro-batch 1
  EXPECT_EQ(s.passes[1][1].backward.microbatch, 0);  // with the backward of micro-batch 0
  // F = 1, B = 2, F&B = 2.5 us, no transfer time. r0 F0 0-1, F1 1-2; r1 F0 1-2, [B0&F1] 2-4.5 (F1 from r0 at 2);
  // r0 [B0&F2] 4.5-7; r1 [B1&F2] 7-9.5; r0 [B1&F3] 9.5-12; r1 [B2&F3] 12-14.5; r0 B2 14.5-16.5; r1 B3 14.5-16.5;
  // r0 B3 16.5-18.5: makespan 18.5 us (plain 1F1B: (4 + 1) x 3 = 15 us; at 4 micro-batches on 2 stages the pairs'
  // dependencies cost more than the overlap saves).
  EXPECT_EQ(execute_pipeline(s, uniform_costs(1, 2, 1, 2.5)).makespan, micros(18.5));
  // Every schedule it applies to still runs (no pass waits for itself), for PP 2-8 and 1-4 virtual stages.
  for (int pp : {2, 4, 8}) {
    for (int vpp : {1, 2, 4}) {
      auto t = make_schedule(pipeline_schedule(vpp > 1 ? "interleaved" : "1f1b", {}), pp, vpp, 4 * pp);
      merge_steady_state(t);
      EXPECT_NO_THROW((void)execute_pipeline(t, uniform_costs(1, 2, 1, 2.5))) << "PP " << pp << " VPP " << vpp;
    }
  }
}

TEST(PipelineSchedule, InvalidLayoutsAreInputErrors) {
  EXPECT_THROW(make_schedule(k3::parallel::pipeline_schedule("dualpipe", {}), 3, 1, 12), k3::core::InputError);
  EXPECT_THROW(make_schedule(k3::parallel::pipeline_schedule("dualpipe", {}), 8, 1, 10), k3::core::InputError);
  EXPECT_THROW(make_schedule(k3::parallel::pipeline_schedule("interleaved", {}), 4, 2, 6), k3::core::InputError);
}

namespace {

PipelineSchedule dualpipev(int pp, int microbatches) {
  return make_schedule(pipeline_schedule("dualpipev", {}), pp, 1, microbatches);
}

}  // namespace

TEST(PipelineSchedule, DualPipeVHoldsAVOfStages) {
  // deepseek-ai/DualPipe examples/example_dualpipev.py: rank r holds full_modules[r] and
  // full_modules[2 x PP - 1 - r] of 2 x PP stages; one stream of micro-batches.
  for (int pp : {1, 2, 3, 4}) {
    const auto s = dualpipev(pp, 2 * pp);
    EXPECT_EQ(s.stages(), 2 * pp);
    EXPECT_EQ(s.streams, 1);
    for (int r = 0; r < pp; ++r) {
      EXPECT_EQ(s.stage_of(r, 0), r);
      EXPECT_EQ(s.stage_of(r, 1), 2 * pp - 1 - r);
      EXPECT_EQ(s.stream_of(r, 1), 0);
      EXPECT_EQ(s.stages_held(r), (std::vector<int>{r, 2 * pp - 1 - r}));
    }
    for (int stage = 0; stage < 2 * pp; ++stage) {
      const auto [rank, chunk] = s.holder_of(0, stage);
      EXPECT_EQ(s.stage_of(rank, chunk), stage) << "PP " << pp << " stage " << stage;
    }
    // The turn of the V: stages PP-1 and PP are both on the last rank, so their hand-off is not a send.
    EXPECT_EQ(s.holder_of(0, pp - 1).first, pp - 1);
    EXPECT_EQ(s.holder_of(0, pp).first, pp - 1);
  }
}

TEST(PipelineSchedule, DualPipeVRunsEveryMicroBatchOnceOnEveryStage) {
  // For each (stage, micro-batch): one forward (alone or in an F&B), one backward (full, input-only or in
  // an F&B), and one W for each input-only backward; the executor finishes every rank (no deadlock).
  for (int pp : {1, 2, 3, 4, 5, 8}) {
    for (int m : {2 * pp, 2 * pp + 1, 3 * pp, 20}) {
      if (m < 2 * pp) continue;
      const auto s = dualpipev(pp, m);
      std::map<std::pair<int, int>, int> forwards, backwards, deferred, weights;
      for (int r = 0; r < pp; ++r) {
        for (const auto& p : s.passes[static_cast<std::size_t>(r)]) {
          const std::pair key{s.stage_of(r, p.work.chunk), p.work.microbatch};
          switch (p.kind) {
            case PassKind::forward: ++forwards[key]; break;
            case PassKind::backward: ++backwards[key]; break;
            case PassKind::backward_input: ++backwards[key]; ++deferred[key]; break;
            case PassKind::weight: ++weights[key]; break;
            case PassKind::forward_backward:
              ++forwards[key];
              ++backwards[{s.stage_of(r, p.backward.chunk), p.backward.microbatch}];
              break;
          }
        }
      }
      const auto where = "PP " + std::to_string(pp) + " m " + std::to_string(m);
      EXPECT_EQ(forwards.size(), static_cast<std::size_t>(2 * pp * m)) << where;
      EXPECT_EQ(backwards.size(), static_cast<std::size_t>(2 * pp * m)) << where;
      for (const auto& [key, n] : forwards) EXPECT_EQ(n, 1) << where;
      for (const auto& [key, n] : backwards) EXPECT_EQ(n, 1) << where;
      EXPECT_EQ(weights, deferred) << where;
      EXPECT_NO_THROW((void)execute_pipeline(s, uniform_costs(1, 2, 1, 3, 0.1))) << where;
    }
  }
}

TEST(PipelineSchedule, DualPipeVBubbleMatchesClosedForm) {
  // deepseek-ai/DualPipe README, "Pipeline Bubbles and Memory Usage Comparison": DualPipeV's bubble is
  // (S/2 - 1)(F&B + B - 3W) for S stages; here S = 2 x PP, so (PP - 1)(F&B + B - 3W) with F, B, W the costs
  // of one stage. F = B(input) = W = 1 us, B = 2 us, F&B = F + B = 3 us: bubble = 2 (PP - 1), i.e. 6 us at
  // PP = 4 (the README's picture: 4 ranks, 10 micro-batches) and 14 us at PP = 8. Each rank runs F and B of
  // m micro-batches on two stages: 2 x 3 m us of work.
  for (auto [pp, m] : {std::pair{4, 10}, std::pair{4, 20}, std::pair{8, 20}}) {
    const auto t = execute_pipeline(dualpipev(pp, m), uniform_costs(1, 2, 1, 3));
    for (int r = 0; r < pp; ++r) {
      EXPECT_EQ(t.busy[static_cast<std::size_t>(r)], micros(6.0 * m)) << "PP " << pp << " rank " << r;
      EXPECT_EQ(t.bubble(r), micros(2.0 * (pp - 1))) << "PP " << pp << " rank " << r;
    }
  }
}

TEST(PipelineSchedule, DualPipeVOverlapShrinksTheBubbleOfTheLastRank) {
  // F&B = 2.5 us (overlap saves 0.5): (4 - 1)(2.5 + 2 - 3) = 4.5 us at PP = 4. The last rank, DualPipe's
  // middle rank once cut in half, is the busiest and meets it exactly; the others idle no more.
  const auto t = execute_pipeline(dualpipev(4, 10), uniform_costs(1, 2, 1, 2.5));
  EXPECT_EQ(t.bubble(3), micros(4.5));
  for (int r = 0; r < 4; ++r) EXPECT_LE(t.bubble(r), micros(4.5)) << "rank " << r;
}

TEST(PipelineSchedule, DualPipeVBubbleIsBelowOneFOneBOnTheSameRanks) {
  // The same model on the same PP ranks: 1F1B runs each rank's two stages as one (F = 2, B = 4 us), bubble
  // (PP - 1)(F + B) = 6 (PP - 1); DualPipeV's is 2 (PP - 1) with the per-stage costs above.
  for (int pp : {2, 4, 8}) {
    const auto v = execute_pipeline(dualpipev(pp, 2 * pp), uniform_costs(1, 2, 1, 3));
    const auto f = execute_pipeline(make_schedule(pipeline_schedule("1f1b", {}), pp, 1, 2 * pp),
                                    uniform_costs(2, 4, 2, 6));
    for (int r = 0; r < pp; ++r) {
      EXPECT_EQ(f.bubble(r), micros(6.0 * (pp - 1))) << "PP " << pp << " rank " << r;
      EXPECT_LT(v.bubble(r), f.bubble(r)) << "PP " << pp << " rank " << r;
    }
  }
}

TEST(PipelineSchedule, DualPipeVSendsOnlyBetweenNeighbours) {
  // Down the V and back up, each hand-off goes to the next rank or stays on the last one; the interleaved
  // layout would send stage PP-1's output from the last rank back to rank 0.
  for (int pp : {1, 2, 4}) {
    std::set<std::pair<int, int>> sends;
    auto costs = uniform_costs(1, 2, 1, 3);
    costs.p2p = [&](int from, int to) {
      sends.insert({from, to});
      return micros(0.5);
    };
    (void)execute_pipeline(dualpipev(pp, 2 * pp), costs);
    std::set<std::pair<int, int>> neighbours;
    for (int r = 0; r + 1 < pp; ++r) neighbours.insert({{r, r + 1}, {r + 1, r}});
    EXPECT_EQ(sends, neighbours) << "PP " << pp;
  }
}

TEST(PipelineSchedule, DualPipeVActivationsInFlightMatchTheSchedule) {
  // Counting the schedule's passes in order (F or F&B's forward keeps a micro-batch's activations of one
  // stage, a backward frees them), every rank peaks at 2 x PP + 1 stage activations: the README's "PP + 1"
  // for 2 x PP stages. The entry gives it in micro-batches through both of a rank's stages: PP + 1/2.
  const auto& entry = pipeline_schedule("dualpipev", {});
  for (int pp : {1, 2, 4, 8}) {
    const auto s = dualpipev(pp, 20);
    for (int r = 0; r < pp; ++r) {
      int live = 0, peak = 0;
      for (const auto& p : s.passes[static_cast<std::size_t>(r)]) {
        if (p.kind == PassKind::forward || p.kind == PassKind::forward_backward) peak = std::max(peak, ++live);
        if (p.kind == PassKind::backward || p.kind == PassKind::backward_input ||
            p.kind == PassKind::forward_backward) {
          --live;
        }
      }
      EXPECT_EQ(live, 0);
      EXPECT_EQ(peak, 2 * pp + 1) << "PP " << pp << " rank " << r;
      EXPECT_DOUBLE_EQ(entry.microbatches_in_flight(pp, 1, r, 20), peak / 2.0) << "PP " << pp << " rank " << r;
    }
  }
}

TEST(PipelineSchedule, DualPipeVNeedsTwicePPMicroBatches) {
  // DualPipeV.step: assert num_chunks >= num_ranks * 2; no parity condition on PP or the micro-batches.
  try {
    (void)dualpipev(4, 7);
    ADD_FAILURE() << "7 micro-batches on PP 4 accepted";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "batch.micro_batch_seqs");
    EXPECT_NE(std::string(e.what()).find("2 x PP = 8"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW((void)dualpipev(4, 8));
  EXPECT_NO_THROW((void)dualpipev(3, 7));
}

TEST(PipelineSchedule, AskEachPassAsksEachRanksPassesInTheOrderThePipelineFirstAsksThem) {
  // For every registered schedule (PP 4, 2 virtual stages where it takes them, 16 micro-batches), the distinct
  // calls a rank makes to its costs (call kind and chunks), in order of their first call, are the same whether
  // execute_pipeline times the schedule (passes asked again while their inputs are missing, ranks
  // interleaved) or ask_each_pass walks it; the pipeline asks every pass at least once, so the sets match too.
  using Call = std::tuple<char, int, int>;
  for (const auto* entry : pipeline_schedules()) {
    const auto s = make_schedule(*entry, 4, entry->virtual_stages ? 2 : 1, 16);
    const auto recorder = [&](std::vector<std::vector<Call>>& first) {
      first.assign(static_cast<std::size_t>(s.ranks), {});
      auto seen = std::make_shared<std::vector<std::set<Call>>>(static_cast<std::size_t>(s.ranks));
      const auto note = [&first, seen](int r, Call c) {
        if ((*seen)[static_cast<std::size_t>(r)].insert(c).second) first[static_cast<std::size_t>(r)].push_back(c);
      };
      PassCosts c;
      c.forward = [=](int r, int ch) { note(r, {'F', ch, -1}); return micros(1); };
      c.backward = [=](int r, int ch) { note(r, {'B', ch, -1}); return micros(2); };
      c.weight = [=](int r, int ch) { note(r, {'W', ch, -1}); return micros(1); };
      c.forward_backward = [=](int r, int f, int b) { note(r, {'X', f, b}); return micros(3); };
      c.p2p = [](int, int) { return micros(0.5); };
      return c;
    };
    std::vector<std::vector<Call>> timed, walked;
    (void)execute_pipeline(s, recorder(timed), false);
    ask_each_pass(s, recorder(walked));
    EXPECT_EQ(timed, walked) << entry->name;
    EXPECT_FALSE(walked.front().empty()) << entry->name;
    // Rank by rank: a pass class's first ask is on the lowest rank that runs it (what pass_representatives keeps).
    std::vector<int> ranks;
    PassCosts by_rank;
    by_rank.forward = [&](int r, int) { ranks.push_back(r); return micros(1); };
    by_rank.backward = by_rank.forward;
    by_rank.weight = by_rank.forward;
    by_rank.forward_backward = [&](int r, int, int) { ranks.push_back(r); return micros(3); };
    ask_each_pass(s, by_rank);
    EXPECT_TRUE(std::ranges::is_sorted(ranks)) << entry->name;
  }
}
