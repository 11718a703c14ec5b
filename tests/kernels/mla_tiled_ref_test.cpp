// MLA's tiled references (FlashAttention-2 prefill with the output gate, split decode) against the naive
// ones (mla_ref.hpp) and by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/common/k3_shapes.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/mla/mla_ref.hpp"
#include "kernels/mla/mla_tiled_ref.hpp"

using namespace k3::kernels;

TEST(MlaTiledRef, GateHalvesTheCausalFirstToken) {
  // As MlaRef's hand case: o_0 = v_0 = 2, o_1 = (2 + 4) / 2 = 3 before the gate; gate 0 -> sigmoid 1/2,
  // gate ln 3 -> 3 / 4: o = [1, 2.25].
  const std::vector<float> q{1, 0, 1, 0}, k{0.5f, 0.5f, 0.5f, 0.5f}, v{2.0f, 4.0f}, gate{0.0f, std::log(3.0f)};
  std::vector<float> o(2);
  mla_prefill_tiled_ref(q, k, v, gate, 2, 1, 2, 1, o);
  EXPECT_NEAR(o[0], 1.0f, 1e-6);
  EXPECT_NEAR(o[1], 2.25f, 1e-6);
}

TEST(MlaTiledRef, PrefillEqualsNaiveAcrossTileBoundaries) {
  // K3's dims (qk 192, v 128), 2 heads; 1, 63, 64, 65 and 150 tokens (two tiles and a tail of 22).
  const std::size_t h = 2;
  for (std::size_t t : {1, 63, 64, 65, 150}) {
    const auto q = to_float(random_bf16(t * h * kMlaQkDim, t, -1, 1));
    const auto k = to_float(random_bf16(t * h * kMlaQkDim, t + 1, -1, 1));
    const auto v = to_float(random_bf16(t * h * kMlaVDim, t + 2, -1, 1));
    const auto gate = random_float(t * h * kMlaVDim, t + 3, -4, 4);
    std::vector<float> want(t * h * kMlaVDim), got(want.size());
    mla_prefill_ref(q, k, v, t, h, kMlaQkDim, kMlaVDim, want);
    mla_output_gate_ref(gate, want);
    mla_prefill_tiled_ref(q, k, v, gate, t, h, kMlaQkDim, kMlaVDim, got);
    const auto c = compare(got, want, kAttentionTiledRefTolerance);
    EXPECT_TRUE(c.ok()) << "tokens " << t << ": " << c.summary();
  }
}

TEST(MlaTiledRef, SplitLengthFillsThirtyTwoRunsOfWholeTiles) {
  // ceil(L / 32) rounded up to 64, at least 64: L = 1 -> 64; 2048 -> 64; 2049 -> 65 -> 128;
  // 131072 (128K) -> 4096.
  EXPECT_EQ(mla_decode_split_len(1), 64u);
  EXPECT_EQ(mla_decode_split_len(2048), 64u);
  EXPECT_EQ(mla_decode_split_len(2049), 128u);
  EXPECT_EQ(mla_decode_split_len(131072), 4096u);
}

TEST(MlaTiledRef, CombineOfTwoOneKeyRunsWeighsByLogSumExp) {
  // As MlaRef's hand case, one key per run: run 1 has o = 1, lse = ln 3; run 2 o = 0, lse = 0;
  // combine (3 * 1 + 1 * 0) / (3 + 1) = 0.75.
  const std::vector<float> q{std::log(3.0f), 0}, cache{1, 0, 0, 0};
  std::vector<float> o(1);
  mla_decode_split_ref(q, cache, 1, 2, 2, 1, 1.0f, 1, o);
  EXPECT_NEAR(o[0], 0.75f, 1e-6);
}

TEST(MlaTiledRef, SplitDecodeEqualsNaiveAcrossSplitAndTileBoundaries) {
  // The absorbed shapes (576-dim latent, values its first 512), 4 heads; one key, partial tiles, exact
  // tiles, 16 runs of 64 with a tail (989) and 17 runs of 128 (2100); also runs of 100 keys (not a tile).
  const std::size_t h = 4;
  const float scale = 1.0f / std::sqrt(static_cast<float>(kMlaQkDim));
  for (std::size_t len : {1, 63, 64, 65, 989, 2100}) {
    const auto q = to_float(random_bf16(h * kMlaLatentKeyDim, len, -1, 1));
    const auto cache = to_float(random_bf16(len * kMlaLatentKeyDim, len + 1, -1, 1));
    std::vector<float> want(h * kMlaLatentValueDim), got(want.size()), got_100(want.size());
    mla_decode_ref(q, cache, h, len, kMlaLatentKeyDim, kMlaLatentValueDim, scale, want);
    mla_decode_split_ref(q, cache, h, len, kMlaLatentKeyDim, kMlaLatentValueDim, scale, mla_decode_split_len(len), got);
    mla_decode_split_ref(q, cache, h, len, kMlaLatentKeyDim, kMlaLatentValueDim, scale, 100, got_100);
    const auto c = compare(got, want, kAttentionTiledRefTolerance);
    const auto c100 = compare(got_100, want, kAttentionTiledRefTolerance);
    EXPECT_TRUE(c.ok()) << "cache " << len << ": " << c.summary();
    EXPECT_TRUE(c100.ok()) << "cache " << len << " runs of 100: " << c100.summary();
  }
}
