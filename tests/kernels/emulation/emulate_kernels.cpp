// Runs the tensor-core kernels' device code (extracted by scripts/emulate-kernels.sh into KDA_CHUNK_INC,
// MLA_PREFILL_INC, MLA_DECODE_INC) under the CPU emulation and compares it with the references, with the
// tolerances the GPU tests use. Grids and shared-memory sizes as the launchers compute them.
#include "tests/kernels/emulation/cuda_emu.hpp"

#include <cstdio>

#include "kernels/common/k3_shapes.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/kda/kda_chunk_ref.hpp"
#include "kernels/kda/kda_ref.hpp"
#include "kernels/mla/mla_ref.hpp"
#include "kernels/mla/mla_tiled_ref.hpp"

namespace k3::kernels::kda_emu {
#include KDA_CHUNK_INC
}
namespace k3::kernels::prefill_emu {
#include MLA_PREFILL_INC
}
namespace k3::kernels::decode_emu {
#include MLA_DECODE_INC
}

using namespace k3::kernels;

static std::vector<__nv_bfloat16> bf(const std::vector<float>& x) {
  std::vector<__nv_bfloat16> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = __float2bfloat16(x[i]);
  return out;
}

static int failures = 0;
static void report(const char* what, std::size_t n, const Comparison& c) {
  std::printf("%-40s %5zu  %s  %s\n", what, n, c.ok() ? "ok  " : "FAIL", c.summary().c_str());
  if (!c.ok()) ++failures;
}

static void kda_case(std::size_t t, std::size_t h, double a_lo) {
  using namespace kda_emu;
  const std::size_t d = 128;
  const auto q = to_float(random_bf16(t * h * d, t, -0.1, 0.1)), k = to_float(random_bf16(t * h * d, t + 1, -0.1, 0.1));
  const auto v = to_float(random_bf16(t * h * d, t + 2, -1, 1)), a = random_float(t * h * d, t + 3, a_lo, 1.0);
  const auto beta = random_float(t * h, t + 4, 0, 1);
  std::vector<float> ref_state = random_float(h * d * d, 9, -1, 1), gpu_state = ref_state, want(t * h * d), got(t * h * d, -7.0f);
  kda_recurrent_ref(q, k, v, a, beta, t, h, d, d, ref_state, want);
  const std::size_t chunks = (t + 63) / 64;
  auto qb = bf(q), kb = bf(k), vb = bf(v);
  std::vector<__nv_bfloat16> w(chunks * h * 64 * d), qg(w.size()), kend(w.size()), p(chunks * h * 64 * 64);
  std::vector<float> u(w.size()), gl(chunks * h * d);
  const Workspace ws{w.data(), qg.data(), kend.data(), p.data(), u.data(), gl.data()};
  const auto dd = static_cast<unsigned>(d);
  emu::launch(dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(h)), dim3(256), PrepareLayout{dd}.total(),
              kda_chunk_prepare, static_cast<const Bf*>(qb.data()), static_cast<const Bf*>(kb.data()),
              static_cast<const Bf*>(vb.data()), a.data(), beta.data(), ws, static_cast<unsigned>(t), static_cast<unsigned>(h), dd);
  const std::size_t state_smem = (d * kSlab + 2 * kC * kSlab) * sizeof(float) + (2 * d * kSlab + kC * kSlab) * 2;
  emu::launch(dim3(dd / kSlab, static_cast<unsigned>(h)), dim3(128), state_smem, kda_chunk_state, ws, gpu_state.data(),
              got.data(), static_cast<unsigned>(t), static_cast<unsigned>(h), dd);
  char name[96];
  std::snprintf(name, sizeof name, "kda out (a >= %.2f) tokens", a_lo);
  report(name, t, compare(got, want, kKdaChunkBf16Tolerance));
  std::snprintf(name, sizeof name, "kda state (a >= %.2f) tokens", a_lo);
  report(name, t, compare(gpu_state, ref_state, kKdaChunkBf16Tolerance));
  // How much room the tolerance leaves: the same comparison against a 16x smaller one (expected to fail).
  std::snprintf(name, sizeof name, "  (tolerance / 16) out tokens");
  const Tolerance tight{kKdaChunkBf16Tolerance.abs / 16, kKdaChunkBf16Tolerance.rel / 16};
  const auto c = compare(got, want, tight);
  std::printf("%-40s %5zu  %s\n", name, t, c.summary().c_str());
}

static void prefill_case(std::size_t t, std::size_t h) {
  using namespace prefill_emu;
  const std::size_t dqk = kMlaQkDim, dv = kMlaVDim;
  const auto q = to_float(random_bf16(t * h * dqk, t, -1, 1)), k = to_float(random_bf16(t * h * dqk, t + 1, -1, 1));
  const auto v = to_float(random_bf16(t * h * dv, t + 2, -1, 1)), gate = to_float(random_bf16(t * h * dv, t + 3, -4, 4));
  std::vector<float> want(t * h * dv), got(want.size(), -7.0f);
  mla_prefill_ref(q, k, v, t, h, dqk, dv, want);
  mla_output_gate_ref(gate, want);
  auto qb = bf(q), kb = bf(k), vb = bf(v), gb = bf(gate);
  const PrefillArgs a{qb.data(), kb.data(), vb.data(), gb.data(), got.data(), static_cast<unsigned>(t), static_cast<unsigned>(h),
                      static_cast<unsigned>(dqk), static_cast<unsigned>(dv), 1.0f / std::sqrt(static_cast<float>(dqk))};
  emu::launch(dim3(static_cast<unsigned>((t + 63) / 64), static_cast<unsigned>(h)), dim3(128),
              PrefillLayout{static_cast<unsigned>(dqk), static_cast<unsigned>(dv)}.total(), mla_prefill_kernel, a);
  report("mla prefill tokens", t, compare(got, want, kAttentionBf16Tolerance));
}

static void decode_case(std::size_t len, std::size_t heads) {
  using namespace decode_emu;
  const std::size_t dk = kMlaLatentKeyDim, dv = kMlaLatentValueDim;
  const float scale = 1.0f / std::sqrt(192.0f);
  const auto q = to_float(random_bf16(heads * dk, len, -1, 1)), cache = to_float(random_bf16(len * dk, len + 1, -1, 1));
  std::vector<float> want(heads * dv), got(want.size(), -7.0f);
  mla_decode_ref(q, cache, heads, len, dk, dv, scale, want);
  const std::size_t split_len = mla_decode_split_len(len), splits = (len + split_len - 1) / split_len;
  std::vector<float> part_o(splits * heads * dv), part_lse(splits * heads);
  auto qb = bf(q), cb = bf(cache);
  const DecodeArgs a{qb.data(), cb.data(), part_o.data(), part_lse.data(), static_cast<unsigned>(heads), static_cast<unsigned>(len),
                     static_cast<unsigned>(dk), static_cast<unsigned>(dv), static_cast<unsigned>(split_len), scale};
  emu::launch(dim3(static_cast<unsigned>(splits), static_cast<unsigned>((heads + 15) / 16)), dim3(128),
              DecodeLayout{static_cast<unsigned>(dk), static_cast<unsigned>(dv)}.total(), mla_decode_split_kernel, a);
  emu::launch(dim3(static_cast<unsigned>(heads)), dim3(128), 0, mla_decode_combine_kernel,
              static_cast<const float*>(part_o.data()), static_cast<const float*>(part_lse.data()), got.data(),
              static_cast<unsigned>(splits), static_cast<unsigned>(heads), static_cast<unsigned>(dv));
  char name[64];
  std::snprintf(name, sizeof name, "mla decode (%zu heads) cache", heads);
  report(name, len, compare(got, want, kAttentionBf16Tolerance));
}

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "all";
  if (which == "all" || which == "prefill") {
    for (std::size_t t : {1, 7, 64, 67, 150}) prefill_case(t, 2);
  }
  if (which == "all" || which == "decode") {
    for (std::size_t len : {1, 7, 65, 989}) decode_case(len, 17);
    decode_case(2100, 4);
  }
  if (which == "all" || which == "kda") {
    for (std::size_t t : {7, 64, 67, 200}) kda_case(t, 2, 0.9);
    kda_case(130, 1, 0.3);
  }
  std::printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
