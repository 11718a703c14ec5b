// Kernel-versus-reference tests on the GPU at awkward sizes (1, 7, 989, 4096 tokens; widths 3584, 7168).
// Labelled `gpu`; every test skips when no CUDA device is visible.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/common/k3_shapes.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/gemm/gemm_ref.hpp"
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/kda/kda_chunk_ref.hpp"
#include "kernels/kda/kda_ref.hpp"
#include "kernels/mla/mla_ref.hpp"
#include "kernels/mla/mla_tiled_ref.hpp"
#include "kernels/rmsnorm/rmsnorm_ref.hpp"
#include "kernels/situ_glu/situ_glu_ref.hpp"

using namespace k3::kernels;

class GpuKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu::available()) GTEST_SKIP() << "no CUDA device visible";
  }
};

TEST_F(GpuKernels, SituGluMatchesReference) {
  for (std::size_t w : {kExpertFfn, kLatent, kHidden, std::size_t{7}}) {
    for (std::size_t t : kAwkwardTokens) {
      const auto x = random_bf16(t * 2 * w, t + w, -8, 8);
      std::vector<float> want(t * w);
      situ_glu_ref(x, t, w, want);
      const auto c = compare(gpu::situ_glu(x, t, w), want, kSituGluTolerance);
      EXPECT_TRUE(c.ok()) << "tokens " << t << " width " << w << ": " << c.summary();
    }
  }
}

TEST_F(GpuKernels, RmsNormMatchesReference) {
  for (std::size_t w : {kLatent, kHidden, std::size_t{7}}) {
    const auto weight = random_bf16(w, w, 0.5, 1.5);
    for (std::size_t t : kAwkwardTokens) {
      const auto x = random_bf16(t * w, t, -3, 3);
      std::vector<float> want(t * w);
      rmsnorm_ref(x, weight, t, w, kRmsNormEps, want);
      const auto c = compare(gpu::rmsnorm(x, weight, t, w, kRmsNormEps), want, kRmsNormTolerance);
      EXPECT_TRUE(c.ok()) << "tokens " << t << " width " << w << ": " << c.summary();
    }
  }
}

TEST_F(GpuKernels, RouterMatchesReference) {
  for (RouterShape s : {RouterShape{kRoutedExperts, kTopK, 1, 0}, RouterShape{kRoutedExperts, kTopK, 8, 4},
                        RouterShape{kIsoExperts, kIsoTopK, 1, 0}}) {
    for (std::size_t t : kAwkwardTokens) {
      const auto logits = random_float(t * s.experts, t, -4, 4), bias = random_float(s.experts, 1, -0.05, 0.05);
      const auto want = route_ref(logits, bias, t, s);
      const auto got = gpu::route(logits, bias, t, s);
      EXPECT_EQ(got.expert, want.expert) << "tokens " << t << " experts " << s.experts;
      EXPECT_TRUE(compare(got.gate, want.gate, kRouterGateTolerance).ok());
      EXPECT_TRUE(compare(got.cutoff, want.cutoff, kRouterGateTolerance).ok());
    }
  }
}

TEST_F(GpuKernels, QbHistogramAndQuantileMatchReference) {
  const QbHistogramShape s{};
  for (std::size_t t : kAwkwardTokens) {
    const auto scores = random_float(t * s.experts, t, 0, 1), cutoff = random_float(t, t + 1, 0.5, 1);
    const auto counts = gpu::qb_histogram(scores, cutoff, t, s);
    EXPECT_EQ(counts, qb_histogram_ref(scores, cutoff, t, s)) << "tokens " << t;
    const double q = static_cast<double>(t) * 16.0 / 896.0;
    EXPECT_TRUE(compare(gpu::qb_quantile(counts, s, q), qb_quantile_ref(counts, s, q), Tolerance{1e-6, 1e-6}).ok());
  }
}

TEST_F(GpuKernels, PermuteAndUnpermuteMatchReference) {
  for (std::size_t w : {kLatent, kHidden}) {
    for (std::size_t t : kAwkwardTokens) {
      const auto routing = random_routing(t, kTopK, kRoutedExperts, t);
      const auto layout = dispatch_layout_ref(routing, t, kTopK, kRoutedExperts);
      const auto got_layout = gpu::dispatch_layout(routing, t, kTopK, kRoutedExperts);
      EXPECT_EQ(got_layout.counts, layout.counts);
      EXPECT_EQ(got_layout.offsets, layout.offsets);
      EXPECT_EQ(got_layout.position, layout.position);
      EXPECT_EQ(got_layout.source_token, layout.source_token);
      const auto x = random_bf16(t * w, t + 2, -1, 1);
      std::vector<Bf16> want(t * kTopK * w);
      permute_ref(x, layout, kTopK, w, want);
      EXPECT_TRUE(gpu::permute(x, routing, t, kTopK, kRoutedExperts, w) == want) << "tokens " << t << " width " << w;
      const auto gate = random_float(t * kTopK, t + 3, 0, 0.2);
      std::vector<float> combined(t * w);
      unpermute_ref(want, layout, gate, t, kTopK, w, combined);
      const auto c = compare(gpu::unpermute(want, layout.position, gate, t, kTopK, w), combined, kUnpermuteTolerance);
      EXPECT_TRUE(c.ok()) << c.summary();
    }
  }
}

TEST_F(GpuKernels, DenseGemmBf16AndFp8MatchExactReference) {
  for (std::size_t m : kAwkwardTokens) {
    const std::size_t n = 512, k = kLatent;
    const auto a = random_eighths(m * k, m), b = random_eighths(n * k, 2);
    std::vector<float> want(m * n);
    gemm_ref(a, b, m, n, k, want);
    EXPECT_TRUE(compare(gpu::gemm(a, b, m, n, k, "bf16"), want, kGemmBf16OutTolerance).ok()) << "bf16 m " << m;
    if (gpu::fp8_supported()) {
      EXPECT_TRUE(compare(gpu::gemm(a, b, m, n, k, "fp8"), want, kGemmBf16OutTolerance).ok()) << "fp8 m " << m;
    }
  }
}

TEST_F(GpuKernels, GroupedGemmMatchesReferenceWithUnevenLoads) {
  // Loads 1, 7, 0, 989 tokens at the latent shape (3584 -> 3072).
  const std::vector<std::size_t> rows{1, 7, 0, 989};
  const std::size_t total = 997, n = kExpertFfn, k = kLatent;
  const auto a = random_eighths(total * k, 3), b = random_eighths(rows.size() * n * k, 4);
  std::vector<float> want(total * n);
  grouped_gemm_ref(a, b, rows, n, k, want);
  const auto c = compare(gpu::grouped_gemm(a, b, rows, n, k), want, kGemmBf16OutTolerance);
  EXPECT_TRUE(c.ok()) << c.summary();
}

TEST_F(GpuKernels, MlaFlashPrefillMatchesGatedNaiveReference) {
  // 1, 7 (one partial tile), 64 (one full), 67 and 989 (full tiles and a tail), 2 heads (K3 has 96; heads
  // are independent blocks); BF16-exact inputs, so only P's rounding and the sums' order differ.
  for (std::size_t t : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{67}, std::size_t{989}}) {
    const std::size_t h = 2;
    const auto q = to_float(random_bf16(t * h * kMlaQkDim, t, -1, 1));
    const auto k = to_float(random_bf16(t * h * kMlaQkDim, t + 1, -1, 1));
    const auto v = to_float(random_bf16(t * h * kMlaVDim, t + 2, -1, 1));
    const auto gate = to_float(random_bf16(t * h * kMlaVDim, t + 3, -4, 4));
    std::vector<float> want(t * h * kMlaVDim), tiled(want.size());
    mla_prefill_ref(q, k, v, t, h, kMlaQkDim, kMlaVDim, want);
    mla_output_gate_ref(gate, want);
    mla_prefill_tiled_ref(q, k, v, gate, t, h, kMlaQkDim, kMlaVDim, tiled);
    const auto got = gpu::mla_prefill(q, k, v, gate, t, h, kMlaQkDim, kMlaVDim);
    const auto c = compare(got, want, kAttentionBf16Tolerance), ct = compare(got, tiled, kAttentionBf16Tolerance);
    EXPECT_TRUE(c.ok()) << "prefill tokens " << t << " vs naive: " << c.summary();
    EXPECT_TRUE(ct.ok()) << "prefill tokens " << t << " vs tiled: " << ct.summary();
  }
}

TEST_F(GpuKernels, MlaSplitDecodeMatchesNaiveReference) {
  // K3's 96 heads (6 groups of 16) and 17 (a partial group); cache lengths from one key to 4096 (runs
  // of 64 or 128 keys, partial last tiles).
  const float scale = 1.0f / std::sqrt(static_cast<float>(kMlaQkDim));
  for (std::size_t heads : {std::size_t{96}, std::size_t{17}}) {
    for (std::size_t len : kAwkwardTokens) {
      const auto q = to_float(random_bf16(heads * kMlaLatentKeyDim, len, -1, 1));
      const auto cache = to_float(random_bf16(len * kMlaLatentKeyDim, len + 1, -1, 1));
      std::vector<float> want(heads * kMlaLatentValueDim);
      mla_decode_ref(q, cache, heads, len, kMlaLatentKeyDim, kMlaLatentValueDim, scale, want);
      const auto c = compare(gpu::mla_decode(q, cache, heads, len, kMlaLatentKeyDim, kMlaLatentValueDim, scale), want,
                             kAttentionBf16Tolerance);
      EXPECT_TRUE(c.ok()) << "decode heads " << heads << " cache " << len << ": " << c.summary();
    }
  }
}

TEST_F(GpuKernels, KdaChunkForwardMatchesRecurrentAndChunkedReferences) {
  // 7 (one partial chunk), 64, 67 and 989 (chunks and tails), 3 heads, a nonzero initial state; BF16-exact
  // q, k, v (the kernel takes BF16), decays in [0.9, 1].
  const std::size_t d = kKdaHeadDim, h = 3;
  for (std::size_t t : {std::size_t{7}, std::size_t{64}, std::size_t{67}, std::size_t{989}}) {
    const auto q = to_float(random_bf16(t * h * d, t, -0.1, 0.1));
    const auto k = to_float(random_bf16(t * h * d, t + 1, -0.1, 0.1));
    const auto v = to_float(random_bf16(t * h * d, t + 2, -1, 1)), a = random_float(t * h * d, t + 3, 0.9, 1.0);
    const auto beta = random_float(t * h, t + 4, 0, 1);
    std::vector<float> ref_state = random_float(h * d * d, 9, -1, 1), chunk_state = ref_state, gpu_state = ref_state;
    std::vector<float> want(t * h * d), chunked(want.size());
    kda_recurrent_ref(q, k, v, a, beta, t, h, d, d, ref_state, want);
    kda_chunk_ref(q, k, v, a, beta, t, h, d, d, kKdaChunk, chunk_state, chunked);
    const auto got = gpu::kda_forward(q, k, v, a, beta, t, h, d, gpu_state);
    const auto out = compare(got, want, kKdaChunkBf16Tolerance), vs_chunked = compare(got, chunked, kKdaChunkBf16Tolerance);
    const auto state = compare(gpu_state, ref_state, kKdaChunkBf16Tolerance);
    EXPECT_TRUE(out.ok()) << "tokens " << t << ": " << out.summary();
    EXPECT_TRUE(vs_chunked.ok()) << "tokens " << t << " vs chunked reference: " << vs_chunked.summary();
    EXPECT_TRUE(state.ok()) << "state after " << t << ": " << state.summary();
  }
}

TEST_F(GpuKernels, KdaDecodeStepMatchesRecurrentReference) {
  const std::size_t d = kKdaHeadDim, h = 3;
  const auto q = random_float(h * d, 1, -0.1, 0.1), k = random_float(h * d, 2, -0.1, 0.1);
  const auto v = random_float(h * d, 3, -1, 1), a = random_float(h * d, 4, 0.9, 1.0), beta = random_float(h, 5, 0, 1);
  std::vector<float> ref_state = random_float(h * d * d, 9, -0.1, 0.1), gpu_state = ref_state, want(h * d);
  kda_recurrent_ref(q, k, v, a, beta, 1, h, d, d, ref_state, want);
  EXPECT_TRUE(compare(gpu::kda_decode(q, k, v, a, beta, h, d, gpu_state), want, kKdaTolerance).ok());
  EXPECT_TRUE(compare(gpu_state, ref_state, kKdaTolerance).ok());
}

TEST_F(GpuKernels, CopyProbeReportsAPlausibleBandwidth) {
  // Any GPU this targets moves more than 100 GB/s and less than 100 TB/s.
  const double bw = gpu::hbm_copy_bytes_per_s(256u << 20);
  EXPECT_GT(bw, 1e11);
  EXPECT_LT(bw, 1e14);
}
