// The serving cost model's pieces, derived by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "model/model_spec.hpp"
#include "sim/net/network_factory.hpp"
#include "sim/serve/iteration_cost.hpp"
#include "sim/serve/kv_capacity.hpp"
#include "sim/serve/request_stream.hpp"
#include "sim/serve/serving_simulator.hpp"
#include "tests/model/hf_fixtures.hpp"
#include "tests/serve/serve_fixture.hpp"

namespace {

using k3::test::small_serving;

const char* kThousandTokenPrompts =
    "workload:\n  arrival: {kind: poisson, rate_per_s: 1}\n  prompt_tokens: 1000\n  output_tokens: 10\n"
    "  duration_s: 10\n";

// The fixture's decode instance on GPUs 0-15, without two-batch overlap.
k3::serve::InstanceCostOptions decode_on_two_nodes(const k3::input::ServeInputs& in, const k3::serve::ServingCost& cost) {
  k3::serve::InstanceCostOptions o;
  o.instance = in.spec.deployment.decode;
  for (int g = 0; g < 16; ++g) o.gpus.push_back(static_cast<k3::topo::GpuId>(g));
  o.efficiency = cost.efficiency;
  o.network = in.spec.network;
  o.two_batch_overlap = false;
  return o;
}

// The fixture's DeepSeek-V3 decode step at 64 sequences per rank and 2,000 tokens of context, no two-batch overlap,
// with single-batch overlap's halves as given.
k3::serve::IterationTime single_batch_overlap_step(bool combine_with_down_gemm, bool shared_experts_with_dispatch) {
  auto in = small_serving(kThousandTokenPrompts, {{"scheduler.overlap", "[]"}});
  const auto cost = k3::serve::make_serving_cost(*in.inputs.topology, nullptr, in.spec);
  in.spec.scheduler.combine_with_down_gemm = combine_with_down_gemm;
  in.spec.scheduler.shared_experts_with_dispatch = shared_experts_with_dispatch;
  return k3::serve::decode_rate(cost->inputs(in.inputs.model, *in.inputs.topology), in.spec, 64, 2000).iteration;
}

TEST(IterationCost, AbsorbedMlaDecodeOverALongContext) {
  auto in = small_serving(kThousandTokenPrompts);
  const auto cost = k3::serve::make_serving_cost(*in.inputs.topology, nullptr, in.spec);
  auto o = decode_on_two_nodes(in, *cost);
  k3::serve::IterationCostModel m(in.inputs.model, *in.inputs.topology, *cost->cost, o);
  // One sequence at 2^20 tokens of context. Each of DeepSeek-V3's 61 MLA layers reads the latent cache once,
  // 2^20 x (512 + 64) x 2 B = 1.21 GB, and computes 2 x 128 heads x (576 + 512) x 2^20 = 292 GFLOP (QK over the
  // 576-dim latent, PV back to 512). On an H100 (989 TFLOP/s BF16 x 0.60 attention efficiency = 593 TFLOP/s;
  // 3.35 TB/s x 0.90 = 3.02 TB/s) that is 492 us of math against 400 us of reads: compute-bound.
  k3::serve::BatchShape s;
  s.decode_sequences = 1;
  s.decode_context = std::exp2(20.0);
  s.instance_tokens = 1;
  const auto t = m.time(s);
  const auto& dev = cost->cost->device();
  const double flops = 2.0 * 128 * (576 + 512) * std::exp2(20.0);
  const double bytes = std::exp2(20.0) * 576 * 2;
  const double per_layer = std::max(flops / (dev.bf16_flops_per_s * cost->cost->defaults().attention_fwd.value),
                                    bytes / (dev.hbm_bytes_per_s * cost->cost->defaults().hbm.value));
  EXPECT_NEAR(per_layer, 492e-6, 5e-6);
  EXPECT_NEAR(t.attention, 61 * per_layer, 1e-9);
  // With MTP verifying two tokens per step the reads stay and the math doubles; the MTP module's own MLA layer
  // runs once per draft token at that shape too: 62 layers of 2 x 292 GFLOP.
  o.mtp_draft_tokens = 1;
  k3::serve::IterationCostModel mtp(in.inputs.model, *in.inputs.topology, *cost->cost, o);
  s.instance_tokens = 2;
  EXPECT_NEAR(mtp.time(s).attention, 62 * 2 * flops / (dev.bf16_flops_per_s * cost->cost->defaults().attention_fwd.value),
              1e-9);
}

// Issue 49: an MoE TP group inside the instance. With moe_tp 16 on 16 GPUs (attention DP 16, so attention TP 1)
// every GPU holds a sixteenth of each of DeepSeek-V3's 256 experts. Each of the 58 MoE layers gathers the 1,024
// tokens of all ranks onto every GPU, 1,024 x 7,168 x (1 + 4/128) B = 7.57 MB of FP8 with its scales as each
// GPU's all-gather output, and reduce-scatters the BF16 outputs, 1,024 x 7,168 x 2 B = 14.7 MB of input per GPU:
// two NCCL rings over the 16 GPUs, and no TP all-reduce (attention TP 1). The sizes are rounded to 1/32 of an
// octave (at most 1.1%), the ring's time affine in them.
TEST(IterationCost, ExpertTensorParallelGathersTheTokensAndReduceScattersTheOutputs) {
  auto in = small_serving(kThousandTokenPrompts);
  const auto cost = k3::serve::make_serving_cost(*in.inputs.topology, nullptr, in.spec);
  auto o = decode_on_two_nodes(in, *cost);
  o.dispatch_bytes_per_element = 1 + 4.0 / 128;
  o.combine_bytes_per_element = 2;
  k3::serve::BatchShape s;
  s.decode_sequences = 64;
  s.decode_context = 64 * 1000.0;
  s.instance_tokens = 1024;
  auto ring = [&](k3::net::CollectiveOp op, double bytes) {
    k3::net::CollectiveSpec c;
    c.op = op;
    c.algorithm = k3::net::CollectiveAlgorithm::ring;
    c.ranks = o.gpus;
    c.bytes = bytes;
    return k3::net::simulate_collective(*in.inputs.topology, c, *o.network, o.efficiency).time_s;
  };
  const double gather = ring(k3::net::CollectiveOp::allgather, 1024 * 7168 * (1 + 4.0 / 128));
  const double scatter = ring(k3::net::CollectiveOp::reducescatter, 1024 * 7168 * 2.0);
  o.instance.moe_tp = 16;
  k3::serve::IterationCostModel tp(in.inputs.model, *in.inputs.topology, *cost->cost, o);
  EXPECT_NEAR(tp.time(s).communication, 58 * (gather + scatter), 0.012 * 58 * (gather + scatter));
  // The expert GEMMs' math per GPU is the same either way (16 times the tokens on a sixteenth of the width), and
  // so are the weight bytes (all 256 slices of a sixteenth against 16 whole experts): what moe_tp 16 adds is the
  // sort and the weighted sum over all 8,192 routed rows instead of 512, so its expert time is not below EP's.
  o.instance.moe_tp = 1;
  k3::serve::IterationCostModel ep(in.inputs.model, *in.inputs.topology, *cost->cost, o);
  EXPECT_GE(tp.time(s).experts, ep.time(s).experts);
  // A degree that does not divide the instance's GPUs is refused, naming the key.
  o.instance.moe_tp = 3;
  try {
    k3::serve::IterationCostModel bad(in.inputs.model, *in.inputs.topology, *cost->cost, o);
    ADD_FAILURE() << "moe_tp 3 of 16 GPUs accepted";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "deployment.moe_tp");
  }
}

// Issue 49: the combine under the down GEMM. DeepSeek-V3 decode on 16 H100 (16 local experts per GPU, so 16
// pieces), 64 sequences per rank, no two-batch overlap. Overlapping can only hide communication: the step gets
// shorter, by less than the combines take in all (58 layers; half of the all-to-all time, the dispatch's FP8 rows
// being about half the BF16 combine's: 7,168 x 1.03 B against 7,168 x 2 B).
TEST(IterationCost, TheCombineUnderTheDownGemmHidesPartOfIt) {
  const auto plain = single_batch_overlap_step(false, false), overlapped = single_batch_overlap_step(true, false);
  EXPECT_LT(overlapped.total, plain.total);
  EXPECT_GT(overlapped.total, plain.total - plain.communication);
  EXPECT_DOUBLE_EQ(overlapped.communication, plain.communication);
}

// Issue 49: single-batch overlap's other half, the shared experts beside the dispatch, on the same decode step. It
// can only hide compute that does not need the dispatched tokens: the step gets shorter, by at most the dispatches'
// time (half the all-to-all time, as above), and the parts it is made of do not change.
TEST(IterationCost, TheSharedExpertsBesideTheDispatchHidePartOfIt) {
  const auto plain = single_batch_overlap_step(false, false), overlapped = single_batch_overlap_step(false, true);
  EXPECT_LT(overlapped.total, plain.total);
  EXPECT_GT(overlapped.total, plain.total - plain.communication / 2);
  EXPECT_DOUBLE_EQ(overlapped.other_compute, plain.other_compute);
  // Both halves together hide more than either.
  EXPECT_LT(single_batch_overlap_step(true, true).total, overlapped.total);
}

// A one-GPU instance has no all-to-all to hide, so two-batch overlap leaves it as one batch. The options that simulate a
// single batch on the streams must then still time it: the same step with or without them, never nothing.
TEST(IterationCost, SingleBatchOverlapsBesideTwoBatchOverlapWithNothingToHideKeepTheStep) {
  auto in = small_serving(kThousandTokenPrompts);
  const auto cost = k3::serve::make_serving_cost(*in.inputs.topology, nullptr, in.spec);
  auto o = decode_on_two_nodes(in, *cost);
  o.gpus = {0};
  o.instance.attention_dp = 1;
  o.two_batch_overlap = true;
  k3::serve::BatchShape s;
  s.decode_sequences = 64;
  s.decode_context = 64 * 2000;
  s.instance_tokens = 64;
  const auto plain = k3::serve::IterationCostModel(in.inputs.model, *in.inputs.topology, *cost->cost, o).time(s);
  ASSERT_GT(plain.total, 0);
  o.shared_experts_with_dispatch = o.combine_with_down_gemm = true;
  const auto with = k3::serve::IterationCostModel(in.inputs.model, *in.inputs.topology, *cost->cost, o).time(s);
  EXPECT_DOUBLE_EQ(with.total, plain.total);
}

// The stages of one batch are its whole forward split: without two-batch overlap the stage times add up to the model
// on one stage's GPUs, plus the hop (each GPU sends its 1/8 of 4,096 x 7,168 x 2 B to its peer on the next node).
TEST(IterationCost, PipelineStagesSplitTheForward) {
  auto in = small_serving(kThousandTokenPrompts, {{"scheduler.overlap", "[]"}});
  const auto cost = k3::serve::make_serving_cost(*in.inputs.topology, nullptr, in.spec);
  k3::serve::InstanceCostOptions o;
  o.efficiency = cost->efficiency;
  o.network = in.spec.network;
  o.two_batch_overlap = false;
  o.instance.attention_dp = 8;
  for (int g = 0; g < 16; ++g) o.gpus.push_back(static_cast<k3::topo::GpuId>(g));
  o.instance.pp = 2;
  k3::serve::IterationCostModel piped(in.inputs.model, *in.inputs.topology, *cost->cost, o);
  o.gpus.resize(8);
  o.instance.pp = 1;
  k3::serve::IterationCostModel whole(in.inputs.model, *in.inputs.topology, *cost->cost, o);
  k3::serve::BatchShape b;
  b.prefill_tokens = 512;
  b.prefill_pairs = 512.0 * 512 / 2;
  b.instance_tokens = 4096;
  k3::net::CollectiveSpec c;
  c.op = k3::net::CollectiveOp::sendrecv;
  c.algorithm = k3::net::CollectiveAlgorithm::flat;
  c.ranks = {0, 8};
  c.bytes = 4096 * 7168 * 2.0 / 8;
  const double hop = k3::net::simulate_collective(*in.inputs.topology, c, *o.network, o.efficiency).time_s;
  const auto p = piped.time(b), w = whole.time(b);
  EXPECT_NEAR(p.latency, w.total + hop, 0.011 * hop);  // the hop's size rounded to 1/32 of an octave
  EXPECT_LT(p.total, w.total);
  EXPECT_GE(p.total, w.total / 2);
}

TEST(IterationCost, ExpectedTokensPerStepFollowsTheAcceptanceChain) {
  k3::serve::ServeWorkload w;
  w.mtp_draft_tokens = 2;
  w.mtp_acceptance = 0.8;
  // 1 + 0.8 + 0.8^2 = 2.44
  EXPECT_NEAR(k3::serve::expected_tokens_per_step(w), 2.44, 1e-12);
}

TEST(KvCapacity, DeepSeekV3OnTwoH100NodesInFp8) {
  const auto in = small_serving(kThousandTokenPrompts);
  k3::serve::KvCapacityOptions o;
  o.instance = in.spec.deployment.decode;  // 2 nodes, attention DP 16: TP 1
  o.gpus = 16;
  o.hbm_bytes_per_gpu = in.inputs.topology->gpu_type().hbm_bytes;
  o.weight_bytes_per_param = 1;
  o.reserve_fraction = 0.1;
  o.page_tokens = 64;
  const auto c = k3::serve::rank_kv_capacity(in.inputs.model, o, {});
  // Routed experts: 58 MoE layers x 256 experts x 3 x 7168 x 2048 = 653.9B parameters, spread over 16 GPUs: 40.9 GB
  // each in FP8. The rest of the 671B (17.1B: attention, shared experts, 3 dense layers, embedding and head) sits on
  // every attention-DP rank: 17.1 GB. About 58.0 GB of weights per GPU.
  EXPECT_NEAR(c.weight_bytes_per_gpu / 1e9, 58.0, 0.6);
  // The MLA latent cache: 61 layers x (512 + 64) x 2 B = 70,272 B per token, whole on every GPU of a rank.
  EXPECT_DOUBLE_EQ(c.cache_bytes_per_token_per_gpu, 70272.0);
  EXPECT_NEAR(c.free_bytes_per_gpu, 0.9 * c.hbm_bytes_per_gpu - c.weight_bytes_per_gpu, 1.0);
  // A 1,000-token sequence reserves 16 pages of 64 tokens.
  EXPECT_DOUBLE_EQ(c.sequence_bytes(1000), 16 * 64 * 70272.0);
  // An FP8 cache (precision.kv_cache: fp8): 61 x 576 x 1 B = 35,136 B per token, the weights unchanged.
  o.kv_cache_bytes_per_element = 1;
  const auto fp8 = k3::serve::rank_kv_capacity(in.inputs.model, o, {});
  EXPECT_DOUBLE_EQ(fp8.cache_bytes_per_token_per_gpu, 35136.0);
  EXPECT_DOUBLE_EQ(fp8.weight_bytes_per_gpu, c.weight_bytes_per_gpu);
}

// Issue 49: two pipeline stages of 8 GPUs (attention DP 8) hold half of everything: 40.9 GB of routed experts per
// GPU as before (8 GPUs, half the layers) and half of the 17.1 GB the rest takes: 49.4 GB; half the 70,272 B per
// token of MLA cache.
TEST(KvCapacity, PipelineStagesHoldTheirLayers) {
  const auto in = small_serving(kThousandTokenPrompts);
  k3::serve::KvCapacityOptions o;
  o.instance.attention_dp = 8;
  o.instance.pp = 2;
  o.gpus = 16;
  o.hbm_bytes_per_gpu = in.inputs.topology->gpu_type().hbm_bytes;
  o.weight_bytes_per_param = 1;
  const auto c = k3::serve::rank_kv_capacity(in.inputs.model, o, {});
  EXPECT_NEAR(c.weight_bytes_per_gpu / 1e9, 49.4, 0.6);
  EXPECT_DOUBLE_EQ(c.cache_bytes_per_token_per_gpu, 35136.0);
}

// Llama 4 Maverick on one 8-GPU TP instance: a chunked layer holds the tokens since its chunk began, at most
// 8,192, so a short sequence reserves only what it has (issue 49: the cap was reserved for every sequence).
TEST(KvCapacity, ChunkedLayersGrowWithTheSequence) {
  const auto m = k3::model::load_model(k3::test::hf_fixture("llama-4-maverick"));
  k3::serve::KvCapacityOptions o;
  o.instance.attention_dp = 1;
  o.gpus = 8;
  o.hbm_bytes_per_gpu = 141e9;
  o.weight_bytes_per_param = 1;
  const auto c = k3::serve::rank_kv_capacity(m, o, {});
  // 12 full layers x 2 x 8 kv heads x 128 x 2 B = 49,152 B per token, split over TP 8: 6,144 B.
  EXPECT_DOUBLE_EQ(c.cache_bytes_per_token_per_gpu, 6144.0);
  ASSERT_EQ(c.bounded_per_gpu.size(), 36u);  // 36 chunked layers of 4,096 / 8 = 512 B per token each
  EXPECT_DOUBLE_EQ(c.state_bytes_per_sequence_per_gpu, 0.0);
  // 2,000 tokens: 32 pages of 64 = 2,048 tokens in every layer: 2,048 x (6,144 + 36 x 512) = 50,331,648 B
  // (reserving the chunk, 36 x 8,192 x 512 B, would take 163,577,856 B).
  EXPECT_DOUBLE_EQ(c.sequence_bytes(2000), 2048 * (6144.0 + 36 * 512));
  // 10,000 tokens: 157 pages (10,048 tokens) in the full layers, the 8,192-token cap in the chunked ones.
  EXPECT_DOUBLE_EQ(c.sequence_bytes(10000), 10048 * 6144.0 + 36 * 8192 * 512.0);
}

// The refusal proposes only what the scenario does not already do.
TEST(KvCapacity, RefusalSuggestsOnlyWhatIsNotSet) {
  const auto m = k3::model::load_model(k3::test::hf_fixture("llama-4-maverick"));
  k3::serve::KvCapacityOptions o;
  o.instance.attention_dp = 1;
  o.gpus = 4;
  o.hbm_bytes_per_gpu = 80e9;  // 400B parameters in FP8 over 4 GPUs: 100 GB each
  o.weight_bytes_per_param = 1;
  o.reserve_fraction = 0;
  try {
    k3::serve::rank_kv_capacity(m, o, {});
    ADD_FAILURE() << "fits";
  } catch (const k3::core::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("more nodes per instance"), std::string::npos) << what;
    for (const char* set : {"precision.weights", "attention_dp", "memory_reserve_fraction"}) {
      EXPECT_EQ(what.find(set), std::string::npos) << set << " in: " << what;
    }
  }
  o.weight_bytes_per_param = 2;
  o.instance.attention_dp = 2;
  k3::test::expect_input_error([&] { k3::serve::rank_kv_capacity(m, o, {}); },
                               {"precision.weights: fp8", "a smaller attention_dp"});
}

TEST(RequestStream, PoissonArrivalsHaveTheirRate) {
  k3::serve::ServeWorkload w;
  w.arrival.rate_per_s = 50;
  w.duration_s = 200;
  k3::core::Rng rng(3);
  const auto r = k3::serve::open_loop_requests(w, rng);
  // 10,000 expected; the count's standard deviation is 100.
  EXPECT_NEAR(static_cast<double>(r.size()), 10000.0, 400.0);
  for (std::size_t i = 1; i < r.size(); ++i) ASSERT_GE(r[i].arrival_s, r[i - 1].arrival_s);
}

TEST(RequestStream, LognormalLengthsKeepTheirMeanAndBounds) {
  k3::serve::LengthDistribution d;
  d.kind = k3::serve::LengthDistribution::Kind::lognormal;
  d.mean = 2000;
  d.sigma = 0.5;
  d.min = 1;
  d.max = 1e9;
  k3::core::Rng rng(5);
  double sum = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) sum += k3::serve::draw_length(d, rng);
  // Rounded down to whole tokens: the mean sits 0.5 below 2000, within the sample's 0.53 x 2000 / sqrt(n) = 7.5.
  EXPECT_NEAR(sum / n, 1999.5, 25);
}

}  // namespace
