// CPU references of the elementwise kernels against hand-derived values.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/common/bf16.hpp"
#include "kernels/common/tolerance.hpp"
#include "kernels/rmsnorm/rmsnorm_ref.hpp"
#include "kernels/situ_glu/situ_glu_ref.hpp"

using namespace k3::kernels;

TEST(Bf16, RoundsToNearestEven) {
  // 1 + 2^-8 lies exactly between 1 and 1 + 2^-7 (BF16 has 7 fraction bits): ties go to the even one, 1.
  EXPECT_EQ(round_bf16(1.0f + 0x1.0p-8f), 1.0f);
  // 1 + 3 * 2^-8 lies between 1 + 2^-7 (odd) and 1 + 2^-6 (even): rounds up to 1 + 2^-6.
  EXPECT_EQ(round_bf16(1.0f + 3 * 0x1.0p-8f), 1.0f + 0x1.0p-6f);
  EXPECT_EQ(to_bf16(-2.0f), 0xC000);  // sign 1, exponent 128, fraction 0
  EXPECT_TRUE(std::isnan(round_bf16(NAN)));
}

TEST(Tolerance, BoundScalesWithValueAndMagnitude) {
  const Tolerance tol{0.01, 0.1};
  // 0.01 + 0.1 * max(|-5|, 2) = 0.51
  EXPECT_DOUBLE_EQ(tol.bound(-5.0, 2.0), 0.51);
  const std::vector<float> want{1.0f, 100.0f, 0.0f};
  // errors 0.1 (bound 0.11: ok), 9 (bound 10.01: ok), 0.02 (bound 0.01: violation, ratio 2)
  const std::vector<float> got{1.1f, 109.0f, 0.02f};
  const auto c = compare(got, want, tol);
  EXPECT_EQ(c.violations, 1u);
  EXPECT_EQ(c.worst_index, 2u);
  EXPECT_NEAR(c.worst_ratio, 2.0, 1e-5);
  EXPECT_FALSE(c.ok());
  const std::vector<float> nan_got{1.0f, NAN, 0.0f};
  EXPECT_EQ(compare(nan_got, want, tol).violations, 1u);
}

TEST(SituGluRef, HandDerivedValues) {
  // Token 0: a = 4, b = 25.  SiTU(4; 4) = 4 tanh(1) sigmoid(4) = 3.0463766 * 0.9820138 = 2.9915839;
  //          softcap(25; 25) = 25 tanh(1) = 19.0398539; product 56.959320.
  // Token 1: a = -2, b = 1.  SiTU(-2; 4) = 4 tanh(-0.5) sigmoid(-2) = -1.8483166 * 0.1192029 = -0.2203429;
  //          softcap(1; 25) = 25 tanh(0.04) = 0.9994670; product -0.2202254.
  // Width 1, so each row of the fused input is [a, b]. All four inputs are exact in BF16.
  const std::vector<Bf16> x{to_bf16(4.0f), to_bf16(25.0f), to_bf16(-2.0f), to_bf16(1.0f)};
  std::vector<float> out(2);
  situ_glu_ref(x, 2, 1, out);
  EXPECT_NEAR(out[0], 56.959320, 1e-4);
  EXPECT_NEAR(out[1], -0.2202254, 1e-6);
}

TEST(SituGluRef, SaturatesAtTheCaps) {
  // Large a: sigmoid -> 1 and softcap(a; 4) -> 4; large b: softcap -> 25. So SiTU-GLU -> 4 * 25 = 100.
  // At a = b = 1000: tanh(250) = tanh(40) = 1 in double, sigmoid(1000) = 1: exactly 100.
  const std::vector<Bf16> x{to_bf16(1000.0f), to_bf16(1000.0f)};
  std::vector<float> out(1);
  situ_glu_ref(x, 1, 1, out);
  EXPECT_FLOAT_EQ(out[0], 100.0f);
  // Zero gate: softcap(0) = 0, so the output is 0 whatever b is.
  const std::vector<Bf16> z{to_bf16(0.0f), to_bf16(7.0f)};
  situ_glu_ref(z, 1, 1, out);
  EXPECT_EQ(out[0], 0.0f);
}

TEST(RmsNormRef, HandDerivedValues) {
  // x = [3, 4]: mean square (9 + 16) / 2 = 12.5, rms = 3.5355339 (eps 0).
  // weight [1, 2]: y = [3 / 3.5355339, 2 * 4 / 3.5355339] = [0.8485281, 2.2627417].
  const std::vector<Bf16> x{to_bf16(3.0f), to_bf16(4.0f)};
  const std::vector<Bf16> w{to_bf16(1.0f), to_bf16(2.0f)};
  std::vector<float> out(2);
  rmsnorm_ref(x, w, 1, 2, 0.0f, out);
  EXPECT_NEAR(out[0], 0.8485281, 1e-6);
  EXPECT_NEAR(out[1], 2.2627417, 1e-6);
}

TEST(RmsNormRef, UnitWeightRowsHaveUnitRootMeanSquare) {
  // Any row normalised with weight 1 and eps 0 has mean(y^2) = 1, at K3's latent width.
  const std::size_t w = 3584;
  std::vector<Bf16> x(2 * w), weight(w, to_bf16(1.0f));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = to_bf16(static_cast<float>((i % 13) + 1) * (i < w ? 1.0f : -0.01f));
  std::vector<float> out(2 * w);
  rmsnorm_ref(x, weight, 2, w, 0.0f, out);
  for (std::size_t t = 0; t < 2; ++t) {
    double ms = 0;
    for (std::size_t c = 0; c < w; ++c) ms += static_cast<double>(out[t * w + c]) * static_cast<double>(out[t * w + c]);
    EXPECT_NEAR(ms / static_cast<double>(w), 1.0, 1e-5);
  }
}
