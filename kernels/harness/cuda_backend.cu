// The cuda backend: validates each kernel against its CPU reference at an awkward size, then times it over
// a shape sweep with CUDA events after warm-up, flushing L2 before every repetition.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <type_traits>

#include "kernels/common/k3_shapes.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/gemm/gemm.cuh"
#include "kernels/gemm/gemm_ref.hpp"
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/harness/backend.hpp"
#include "kernels/kda/kda.cuh"
#include "kernels/kda/kda_chunk.cuh"
#include "kernels/kda/kda_chunk_ref.hpp"
#include "kernels/kda/kda_ref.hpp"
#include "kernels/mla/mla_decode.cuh"
#include "kernels/mla/mla_prefill.cuh"
#include "kernels/mla/mla_ref.hpp"
#include "kernels/mla/mla_tiled_ref.hpp"
#include "kernels/permute/permute.cuh"
#include "kernels/probes/probes.cuh"
#include "kernels/qb_histogram/qb_histogram.cuh"
#include "kernels/rmsnorm/rmsnorm.cuh"
#include "kernels/rmsnorm/rmsnorm_ref.hpp"
#include "kernels/router/router.cuh"
#include "kernels/situ_glu/situ_glu.cuh"
#include "kernels/situ_glu/situ_glu_ref.hpp"

namespace k3::kernels {

bool cuda_backend_compiled() { return true; }

namespace {

using nlohmann::json;
using cost::WorkUnit;

void require(const Comparison& c, const std::string& what) {
  if (!c.ok()) throw core::InternalError("kernel " + what + " disagrees with its CPU reference: " + c.summary());
}

// Timing inputs, filled on the device (launch_fill_uniform): the largest are gigabytes.
template <class T>
DeviceBuffer<T> device_random(std::size_t n, std::uint64_t seed, double lo, double hi) {
  DeviceBuffer<T> b(n);
  if constexpr (std::is_same_v<T, float>) {
    launch_fill_uniform(b.get(), n, seed, static_cast<float>(lo), static_cast<float>(hi), nullptr);
  } else {
    launch_fill_uniform(as_bf16(b.get()), n, seed, static_cast<float>(lo), static_cast<float>(hi), nullptr);
  }
  return b;
}

// K3's projections as GEMM (n, k), C[m, n] = A[m, k] B[n, k]^T (DESIGN.md "Weights per layer"; p = 96 x 128).
struct Projection {
  const char* name;
  std::size_t n, k;
};
constexpr std::size_t kHeadsTimes128 = 96 * 128;
constexpr Projection kProjections[] = {
    {"mla.q_a", 1536, kHidden},
    {"mla.q_b", 96 * kMlaQkDim, 1536},
    {"mla.kv_a", kMlaLatentKeyDim, kHidden},
    {"mla.kv_b", 96 * (128 + kMlaVDim), 512},
    {"kda.qkv_g (each)", kHeadsTimes128, kHidden},
    {"o_proj", kHidden, kHeadsTimes128},
    {"kda.f_a", 128, kHidden},
    {"kda.f_b", kHeadsTimes128, 128},
    {"moe.router", kRoutedExperts, kHidden},
    {"moe.latent_down", kLatent, kHidden},
    {"moe.latent_up", kHidden, kLatent},
    {"shared.gate_up", 2 * 2 * kExpertFfn, kHidden},
    {"shared.down", kHidden, 2 * kExpertFfn},
    {"lm_head", 163840, kHidden},
};

class CudaBackend final : public Backend {
 public:
  CudaBackend() { K3_CUDA(cudaStreamCreate(&stream_)); blas_.set_stream(stream_); }
  ~CudaBackend() override { cudaStreamDestroy(stream_); }

  cost::DeviceIdentity identify() const override {
    cudaDeviceProp prop{};
    K3_CUDA(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0, count = 0, sm_khz = 0, mem_khz = 0;
    K3_CUDA(cudaDriverGetVersion(&driver));
    K3_CUDA(cudaRuntimeGetVersion(&runtime));
    K3_CUDA(cudaGetDeviceCount(&count));
    K3_CUDA(cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0));
    K3_CUDA(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0));
    cost::DeviceIdentity d;
    d.backend = "cuda";
    d.name = prop.name;
    d.driver = "CUDA driver API " + std::to_string(driver / 1000) + "." + std::to_string((driver % 1000) / 10);
    d.runtime = "CUDA runtime " + std::to_string(runtime / 1000) + "." + std::to_string((runtime % 1000) / 10);
    d.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    d.sm_clock_mhz = sm_khz / 1000.0;
    d.memory_clock_mhz = mem_khz / 1000.0;
    d.memory_bytes = static_cast<double>(prop.totalGlobalMem);
    d.device_count = count;
    return d;
  }

  std::vector<std::string> available_ops() const override {
    return {"hbm_copy", "gemm_peak", "situ_glu", "rmsnorm", "router", "qb_histogram", "permute", "gemm",
            "grouped_gemm", "mla_prefill", "mla_decode", "kda_forward", "kda_decode"};
  }

  std::vector<OpRun> measure(const std::string& op, bool quick) override {
    quick_ = quick;
    runs_.clear();
    if (op == "hbm_copy") hbm_copy();
    else if (op == "gemm_peak") gemm_peak();
    else if (op == "situ_glu") situ_glu();
    else if (op == "rmsnorm") rmsnorm();
    else if (op == "router") router();
    else if (op == "qb_histogram") qb_histogram();
    else if (op == "permute") permute();
    else if (op == "gemm") gemm();
    else if (op == "grouped_gemm") grouped_gemm();
    else if (op == "mla_prefill") mla_prefill();
    else if (op == "mla_decode") mla_decode();
    else if (op == "kda_forward") kda(false);
    else if (op == "kda_decode") kda(true);
    else throw core::InputError({"--ops", "", 0}, "the cuda backend has no op '" + op + "'");
    K3_CUDA(cudaStreamSynchronize(stream_));
    return std::move(runs_);
  }

 private:
  std::vector<std::size_t> token_sweep() const {
    return quick_ ? std::vector<std::size_t>{1, 64, 1024, 4096}
                  : std::vector<std::size_t>{1, 7, 64, 256, 989, 1024, 4096, 16384};
  }

  void timed(const std::string& op, std::string cls, std::string peak, WorkUnit unit, json shape, double flops,
             double bytes, std::string validation, const std::function<void()>& launch) {
    const int reps = quick_ ? 5 : 20;
    try {
      auto samples = time_with_events(launch, l2_, 3, reps, stream_);
      runs_.push_back({op, std::move(cls), std::move(peak), unit, std::move(shape), flops, bytes,
                       summarize(std::move(samples)), std::move(validation)});
    } catch (const core::InternalError& e) {
      // A library call that refuses one shape (cuBLASLt's FP8 heuristics, say) costs that shape, not the op's
      // whole sweep; the shape is named on stderr and absent from the profile. A sticky CUDA error fails
      // every later call, so the next shape's error ends the op as before.
      std::fprintf(stderr, "calibrate: %s %s not timed: %s\n", op.c_str(), shape.dump().c_str(), e.what());
      (void)cudaGetLastError();
    }
  }

  void hbm_copy() {
    for (double mib : quick_ ? std::vector<double>{16, 1024} : std::vector<double>{1, 16, 256, 1024, 4096}) {
      const auto bytes = static_cast<std::size_t>(mib * 1024 * 1024);
      DeviceBuffer<unsigned char> src(bytes), dst(bytes);
      K3_CUDA(cudaMemsetAsync(src.get(), 1, bytes, stream_));
      timed("hbm_copy", "copy", "hbm", WorkUnit::kBytes, {{"bytes", bytes}}, 0, 2.0 * static_cast<double>(bytes),
            "probe", [&] { launch_copy(src.get(), dst.get(), bytes, stream_); });
    }
  }

  void gemm_peak() {
    const std::size_t n = quick_ ? 4096 : 8192;
    auto a = device_random<Bf16>(n * n, 1, -1, 1), b = device_random<Bf16>(n * n, 2, -1, 1);
    DeviceBuffer<Bf16> c(n * n);
    timed("gemm_peak", "gemm_peak", "gemm_bf16", WorkUnit::kFlops, {{"m", n}, {"n", n}, {"k", n}, {"dtype", "bf16"}},
          gemm_flops(n, n, n), 6.0 * static_cast<double>(n * n), "probe",
          [&] { blas_.gemm_bf16(as_bf16(a.get()), as_bf16(b.get()), as_bf16(c.get()), n, n, n); });
    if (device_supports_fp8()) {
      DeviceBuffer<__nv_fp8_e4m3> a8(n * n), b8(n * n);
      auto af = device_random<float>(n * n, 3, -1, 1);
      launch_to_fp8(af.get(), a8.get(), n * n, stream_);
      launch_to_fp8(af.get(), b8.get(), n * n, stream_);
      timed("gemm_peak", "gemm_peak", "gemm_fp8", WorkUnit::kFlops, {{"m", n}, {"n", n}, {"k", n}, {"dtype", "fp8"}},
            gemm_flops(n, n, n), 4.0 * static_cast<double>(n * n), "probe",
            [&] { blas_.gemm_fp8(a8.get(), b8.get(), as_bf16(c.get()), n, n, n); });
    }
  }

  void situ_glu() {
    // Validate at 989 tokens (a partial last wave) and an odd width (the scalar path) and K3's width.
    for (std::size_t w : {std::size_t{7}, kExpertFfn}) {
      const auto x = random_bf16(989 * 2 * w, 10, -8, 8);
      std::vector<float> want(989 * w);
      situ_glu_ref(x, 989, w, want);
      require(compare(gpu::situ_glu(x, 989, w), want, kSituGluTolerance), "situ_glu");
    }
    for (std::size_t t : token_sweep()) {
      auto x = device_random<Bf16>(t * 2 * kExpertFfn, 11, -8, 8);
      DeviceBuffer<Bf16> out(t * kExpertFfn);
      timed("situ_glu", "elementwise", "hbm", WorkUnit::kBytes, {{"tokens", t}, {"width", kExpertFfn}}, 0,
            situ_glu_bytes(t, kExpertFfn), "gpu vs cpu reference at 989 tokens, widths 7 and 3072",
            [&] { launch_situ_glu(as_bf16(x.get()), as_bf16(out.get()), t, kExpertFfn, stream_); });
    }
  }

  void rmsnorm() {
    for (std::size_t w : {kLatent, kHidden}) {
      const auto x = random_bf16(7 * w, 12, -3, 3), weight = random_bf16(w, 13, 0.5, 1.5);
      std::vector<float> want(7 * w);
      rmsnorm_ref(x, weight, 7, w, kRmsNormEps, want);
      require(compare(gpu::rmsnorm(x, weight, 7, w, kRmsNormEps), want, kRmsNormTolerance), "rmsnorm");
      auto dw = device_random<Bf16>(w, 13, 0.5, 1.5);
      for (std::size_t t : token_sweep()) {
        auto dx = device_random<Bf16>(t * w, 14, -3, 3);
        DeviceBuffer<Bf16> out(t * w);
        timed("rmsnorm", "norm", "hbm", WorkUnit::kBytes, {{"tokens", t}, {"width", w}}, 0, rmsnorm_bytes(t, w),
              "gpu vs cpu reference at 7 tokens",
              [&] { launch_rmsnorm(as_bf16(dx.get()), as_bf16(dw.get()), as_bf16(out.get()), t, w, kRmsNormEps, stream_); });
      }
    }
  }

  void router() {
    for (RouterShape s : {RouterShape{kRoutedExperts, kTopK, 8, 4}, RouterShape{kIsoExperts, kIsoTopK, 1, 0}}) {
      const auto logits = random_float(989 * s.experts, 15, -4, 4), bias = random_float(s.experts, 16, -0.05, 0.05);
      const auto want = route_ref(logits, bias, 989, s);
      const auto got = gpu::route(logits, bias, 989, s);
      if (got.expert != want.expert) throw core::InternalError("kernel router chose different experts than route_ref");
      require(compare(got.gate, want.gate, kRouterGateTolerance), "router gates");
      auto dl = device_random<float>(token_sweep().back() * s.experts, 17, -4, 4);
      auto db = device_random<float>(s.experts, 18, -0.05, 0.05);
      for (std::size_t t : token_sweep()) {
        DeviceBuffer<std::int32_t> e(t * s.top_k);
        DeviceBuffer<float> g(t * s.top_k), c(t);
        timed("router", "router", "hbm", WorkUnit::kBytes,
              {{"tokens", t}, {"experts", s.experts}, {"top_k", s.top_k}, {"max_nodes", s.max_nodes}}, 0,
              router_bytes(t, s), "gpu vs cpu reference at 989 tokens (exact experts)",
              [&] { launch_router(dl.get(), db.get(), e.get(), g.get(), c.get(), t, s, stream_); });
      }
    }
  }

  void qb_histogram() {
    const QbHistogramShape s{};
    const auto scores = random_float(989 * s.experts, 19, 0, 1), cutoff = random_float(989, 20, 0.5, 1);
    const auto counts = gpu::qb_histogram(scores, cutoff, 989, s);
    if (counts != qb_histogram_ref(scores, cutoff, 989, s)) throw core::InternalError("kernel qb_histogram differs from qb_histogram_ref");
    require(compare(gpu::qb_quantile(counts, s, 989.0 * 16 / 896), qb_quantile_ref(counts, s, 989.0 * 16 / 896),
                    Tolerance{1e-6, 1e-6}), "qb_quantile");
    for (std::size_t t : token_sweep()) {
      auto ds = device_random<float>(t * s.experts, 21, 0, 1), dc = device_random<float>(t, 22, 0.5, 1);
      DeviceBuffer<std::uint32_t> h(s.experts * s.bins);
      timed("qb_histogram", "qb_histogram", "hbm", WorkUnit::kBytes, {{"tokens", t}, {"experts", s.experts}, {"bins", s.bins}},
            0, qb_histogram_bytes(t, s), "gpu vs cpu reference at 989 tokens (exact counts)", [&] {
              K3_CUDA(cudaMemsetAsync(h.get(), 0, h.size() * sizeof(std::uint32_t), stream_));
              launch_qb_histogram(ds.get(), dc.get(), h.get(), t, s, stream_);
            });
    }
  }

  void permute() {
    const auto routing = random_routing(989, kTopK, kRoutedExperts, 23);
    const auto x = random_bf16(989 * kLatent, 24, -1, 1);
    const auto layout = dispatch_layout_ref(routing, 989, kTopK, kRoutedExperts);
    const auto got_layout = gpu::dispatch_layout(routing, 989, kTopK, kRoutedExperts);
    if (got_layout.position != layout.position || got_layout.offsets != layout.offsets)
      throw core::InternalError("kernel dispatch layout differs from dispatch_layout_ref");
    std::vector<Bf16> want(989 * kTopK * kLatent);
    permute_ref(x, layout, kTopK, kLatent, want);
    if (gpu::permute(x, routing, 989, kTopK, kRoutedExperts, kLatent) != want)
      throw core::InternalError("kernel permute differs from permute_ref");
    for (std::size_t t : token_sweep()) {
      const auto r = random_routing(t, kTopK, kRoutedExperts, 25);
      DeviceBuffer<std::int32_t> de{std::span<const std::int32_t>(r)}, counts(kRoutedExperts), offsets(kRoutedExperts),
          pos(t * kTopK), src(t * kTopK);
      DispatchScratch scratch(t * kTopK, kRoutedExperts);
      auto dx = device_random<Bf16>(t * kLatent, 26, -1, 1);
      DeviceBuffer<Bf16> out(t * kTopK * kLatent);
      timed("permute", "permute", "hbm", WorkUnit::kBytes, {{"tokens", t}, {"top_k", kTopK}, {"width", kLatent}}, 0,
            permute_bytes(t, kTopK, kLatent), "gpu vs cpu reference at 989 tokens (exact layout and rows)", [&] {
              launch_dispatch_layout(de.get(), counts.get(), offsets.get(), pos.get(), src.get(), t, kTopK,
                                     kRoutedExperts, scratch, stream_);
              launch_permute_rows(as_bf16(dx.get()), pos.get(), as_bf16(out.get()), t, kTopK, kLatent, stream_);
            });
    }
  }

  void validate_gemm(const std::string& dtype) {
    const std::size_t m = 7, n = 256, k = kHidden;
    const auto a = random_eighths(m * k, 27), b = random_eighths(n * k, 28);
    std::vector<float> want(m * n);
    gemm_ref(a, b, m, n, k, want);
    require(compare(gpu::gemm(a, b, m, n, k, dtype), want, kGemmBf16OutTolerance), "gemm " + dtype);
  }

  void gemm() {
    validate_gemm("bf16");
    bool fp8 = device_supports_fp8();
    if (fp8) {
      try {
        validate_gemm("fp8");
      } catch (const core::InternalError& e) {  // BF16 is still worth timing; FP8 is left out, loudly
        std::fprintf(stderr, "calibrate: FP8 GEMMs not timed: %s\n", e.what());
        fp8 = false;
      }
    }
    for (const Projection& proj : kProjections) {
      const std::size_t n = proj.n, k = proj.k;
      auto b = device_random<Bf16>(n * k, 29, -1, 1);
      std::optional<DeviceBuffer<__nv_fp8_e4m3>> b8;
      if (fp8) {
        b8.emplace(n * k);
        auto bf = device_random<float>(n * k, 31, -1, 1);
        launch_to_fp8(bf.get(), b8->get(), n * k, stream_);
      }
      for (std::size_t m : token_sweep()) {
        auto a = device_random<Bf16>(m * k, 30, -1, 1);
        DeviceBuffer<Bf16> c(m * n);
        timed("gemm", "gemm_bf16", "gemm_bf16", WorkUnit::kFlops,
              {{"m", m}, {"n", n}, {"k", k}, {"dtype", "bf16"}, {"projection", proj.name}}, gemm_flops(m, n, k),
              2.0 * static_cast<double>(m * k + n * k + m * n), "cuBLAS vs exact reference at m=7",
              [&] { blas_.gemm_bf16(as_bf16(a.get()), as_bf16(b.get()), as_bf16(c.get()), m, n, k); });
        if (fp8) {
          DeviceBuffer<__nv_fp8_e4m3> a8(m * k);
          auto af = device_random<float>(m * k, 32, -1, 1);
          launch_to_fp8(af.get(), a8.get(), m * k, stream_);
          timed("gemm", "gemm_fp8", "gemm_fp8", WorkUnit::kFlops,
                {{"m", m}, {"n", n}, {"k", k}, {"dtype", "fp8"}, {"projection", proj.name}}, gemm_flops(m, n, k),
                static_cast<double>(m * k + n * k + 2 * m * n), "cuBLASLt vs exact reference at m=7",
                [&] { blas_.gemm_fp8(a8.get(), b8->get(), as_bf16(c.get()), m, n, k); });
        }
      }
    }
  }

  void grouped_gemm() {
    {
      const std::vector<std::size_t> rows{1, 7, 0, 33};  // uneven loads, one idle expert
      const std::size_t n = 256, k = kLatent;
      const auto a = random_eighths(41 * k, 32), b = random_eighths(rows.size() * n * k, 33);
      std::vector<float> want(41 * n);
      grouped_gemm_ref(a, b, rows, n, k, want);
      require(compare(gpu::grouped_gemm(a, b, rows, n, k), want, kGemmBf16OutTolerance), "grouped_gemm");
    }
    // Latent experts 3584 -> 3072 (14 per GPU at EP 64 of 896) and full-width 7168 -> 3072 (7 at EP 64 of 448).
    for (auto [k, experts] : {std::pair<std::size_t, std::size_t>{kLatent, 14}, {kHidden, 7}}) {
      const std::size_t n = kExpertFfn;
      auto b = device_random<Bf16>(experts * n * k, 34, -1, 1);
      for (std::size_t per : quick_ ? std::vector<std::size_t>{16, 256, 1024, 2048}
                                    : std::vector<std::size_t>{1, 8, 32, 64, 128, 256, 512, 1024, 2048, 4096}) {
        auto a = device_random<Bf16>(experts * per * k, 35, -1, 1);
        DeviceBuffer<Bf16> c(experts * per * n);
        GroupedGemmPlan plan(as_bf16(a.get()), as_bf16(b.get()), as_bf16(c.get()),
                             std::vector<std::size_t>(experts, per), n, k);
        timed("grouped_gemm", "grouped_gemm_bf16", "gemm_bf16", WorkUnit::kFlops,
              {{"experts", experts}, {"tokens_per_expert", per}, {"n", n}, {"k", k}, {"dtype", "bf16"}},
              static_cast<double>(experts) * gemm_flops(per, n, k),
              2.0 * static_cast<double>(experts * (per * k + n * k + per * n)),
              "cuBLAS grouped vs exact reference, loads 1/7/0/33", [&] { blas_.grouped_gemm_bf16(plan); });
      }
    }
  }

  void mla_prefill() {
    {  // 67 tokens: a full query tile and a tail of 3, the tail's diagonal inside the second key tile.
      const std::size_t t = 67, h = 2;
      auto q = to_float(random_bf16(t * h * kMlaQkDim, 36, -1, 1)), k = to_float(random_bf16(t * h * kMlaQkDim, 37, -1, 1));
      auto v = to_float(random_bf16(t * h * kMlaVDim, 38, -1, 1)), gate = to_float(random_bf16(t * h * kMlaVDim, 58, -4, 4));
      std::vector<float> want(t * h * kMlaVDim);
      mla_prefill_ref(q, k, v, t, h, kMlaQkDim, kMlaVDim, want);
      mla_output_gate_ref(gate, want);
      require(compare(gpu::mla_prefill(q, k, v, gate, t, h, kMlaQkDim, kMlaVDim), want, kAttentionBf16Tolerance), "mla_prefill");
    }
    const std::size_t heads = 96;
    for (std::size_t t : quick_ ? std::vector<std::size_t>{64, 1024} : std::vector<std::size_t>{64, 256, 1024, 4096, 16384}) {
      auto q = device_random<Bf16>(t * heads * kMlaQkDim, 39, -1, 1), k = device_random<Bf16>(t * heads * kMlaQkDim, 40, -1, 1);
      auto v = device_random<Bf16>(t * heads * kMlaVDim, 41, -1, 1), gate = device_random<Bf16>(t * heads * kMlaVDim, 59, -4, 4);
      DeviceBuffer<float> o(t * heads * kMlaVDim);
      timed("mla_prefill", "attention", "gemm_bf16", WorkUnit::kFlops,
            {{"tokens", t}, {"heads", heads}, {"qk_dim", kMlaQkDim}, {"v_dim", kMlaVDim}, {"algorithm", "FlashAttention-2, WMMA BF16, output gate"}},
            mla_prefill_flops(t, heads, kMlaQkDim, kMlaVDim), 2.0 * static_cast<double>(t * heads * (2 * kMlaQkDim + 2 * kMlaVDim)),
            "gpu vs naive cpu reference (gated) at 67 tokens, 2 heads",
            [&] { launch_mla_prefill(as_bf16(q.get()), as_bf16(k.get()), as_bf16(v.get()), as_bf16(gate.get()), o.get(), t, heads, kMlaQkDim, kMlaVDim, stream_); });
    }
  }

  void mla_decode() {
    const float scale = 1.0f / std::sqrt(static_cast<float>(kMlaQkDim));
    {  // 989 cached tokens: 16 runs of 64, the last one partial; 17 heads: a full group of 16 and one more.
      auto q = to_float(random_bf16(17 * kMlaLatentKeyDim, 42, -1, 1)), cache = to_float(random_bf16(989 * kMlaLatentKeyDim, 43, -1, 1));
      std::vector<float> want(17 * kMlaLatentValueDim);
      mla_decode_ref(q, cache, 17, 989, kMlaLatentKeyDim, kMlaLatentValueDim, scale, want);
      require(compare(gpu::mla_decode(q, cache, 17, 989, kMlaLatentKeyDim, kMlaLatentValueDim, scale), want, kAttentionBf16Tolerance), "mla_decode");
    }
    const std::size_t heads = 96;
    for (std::size_t len : quick_ ? std::vector<std::size_t>{1024, 32768} : std::vector<std::size_t>{256, 4096, 32768, 131072}) {
      auto q = device_random<Bf16>(heads * kMlaLatentKeyDim, 44, -1, 1), cache = device_random<Bf16>(len * kMlaLatentKeyDim, 45, -1, 1);
      DeviceBuffer<float> o(heads * kMlaLatentValueDim);
      MlaDecodeWorkspace ws(heads, len, kMlaLatentValueDim);
      timed("mla_decode", "attention_decode", "hbm", WorkUnit::kBytes,
            {{"cache_len", len}, {"heads", heads}, {"splits", ws.splits()}, {"algorithm", "split over the cache + combine, WMMA BF16"}},
            0, mla_decode_bytes(heads, len, kMlaLatentKeyDim, kMlaLatentValueDim), "gpu vs naive cpu reference at 989 cached tokens, 17 heads",
            [&] { launch_mla_decode(as_bf16(q.get()), as_bf16(cache.get()), o.get(), kMlaLatentKeyDim, scale, ws, stream_); });
    }
  }

  // The forward is the chunkwise kernel on BF16 q, k, v; the decode step the FP32 recurrence.
  void kda(bool decode) {
    const std::size_t d = kKdaHeadDim;
    {
      const std::size_t t = decode ? 1 : 67, h = 2;  // 67: a chunk of 64 and a tail
      auto q = to_float(random_bf16(t * h * d, 46, -0.1, 0.1)), k = to_float(random_bf16(t * h * d, 47, -0.1, 0.1));
      auto v = to_float(random_bf16(t * h * d, 48, -1, 1));
      auto a = random_float(t * h * d, 49, 0.9, 1.0), beta = random_float(t * h, 50, 0, 1);
      auto state0 = random_float(h * d * d, 51, -1, 1);
      std::vector<float> want(t * h * d), ref_state = state0, gpu_state = state0;
      kda_recurrent_ref(q, k, v, a, beta, t, h, d, d, ref_state, want);
      const auto got = decode ? gpu::kda_decode(q, k, v, a, beta, h, d, gpu_state) : gpu::kda_forward(q, k, v, a, beta, t, h, d, gpu_state);
      const Tolerance tol = decode ? kKdaTolerance : kKdaChunkBf16Tolerance;
      require(compare(got, want, tol), decode ? "kda_decode" : "kda_forward");
      require(compare(gpu_state, ref_state, tol), "kda state");
    }
    const std::size_t heads = 96;
    for (std::size_t t : decode ? std::vector<std::size_t>{1} : (quick_ ? std::vector<std::size_t>{64, 1024} : std::vector<std::size_t>{64, 256, 1024, 4096, 16384, 32768, 131072})) {
      auto a = device_random<float>(t * heads * d, 55, 0.9, 1.0), beta = device_random<float>(t * heads, 56, 0, 1);
      auto state = device_random<float>(heads * d * d, 57, -1, 1);
      DeviceBuffer<float> o(t * heads * d);
      if (decode) {
        auto q = device_random<float>(t * heads * d, 52, -0.1, 0.1), k = device_random<float>(t * heads * d, 53, -0.1, 0.1);
        auto v = device_random<float>(t * heads * d, 54, -1, 1);
        timed("kda_decode", "kda_decode", "hbm", WorkUnit::kBytes, {{"heads", heads}, {"head_dim", d}}, 0,
              kda_decode_bytes(heads, d), "gpu vs cpu reference (one step, 2 heads)",
              [&] { launch_kda_recurrent(q.get(), k.get(), v.get(), a.get(), beta.get(), state.get(), o.get(), t, heads, d, stream_); });
      } else {
        auto q = device_random<Bf16>(t * heads * d, 52, -0.1, 0.1), k = device_random<Bf16>(t * heads * d, 53, -0.1, 0.1);
        auto v = device_random<Bf16>(t * heads * d, 54, -1, 1);
        KdaChunkWorkspace ws(t, heads, d);
        timed("kda_forward", "kda", "gemm_bf16", WorkUnit::kFlops,
              {{"tokens", t}, {"heads", heads}, {"head_dim", d}, {"algorithm", "chunkwise WY/UT, chunk 64, WMMA BF16"}},
              kda_chunk_flops(t, heads, d, kKdaChunk), 8.0 * static_cast<double>(heads * d * d),
              "gpu vs recurrent cpu reference at 67 tokens, 2 heads",
              [&] { launch_kda_chunk(as_bf16(q.get()), as_bf16(k.get()), as_bf16(v.get()), a.get(), beta.get(), state.get(), o.get(), ws, stream_); });
      }
    }
  }

  cudaStream_t stream_ = nullptr;
  CublasContext blas_;
  L2Flusher l2_;
  bool quick_ = false;
  std::vector<OpRun> runs_;
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() {
  if (!gpu::available()) {
    throw core::InputError({"--backend", "", 0}, "no CUDA device is visible", "cpu (or run on a machine with a GPU)");
  }
  return std::make_unique<CudaBackend>();
}

}  // namespace k3::kernels
