// The cpu backend: times the CPU references with a steady clock so that the calibration path is exercised
// without a GPU. Its peaks are this CPU's (memcpy bandwidth, FP32 Eigen GEMM): honest numbers for the
// machine that ran it, which the cost model uses only for relative curves and only when told to.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>

#include "kernels/common/k3_shapes.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/gemm/gemm_ref.hpp"
#include "kernels/harness/backend.hpp"
#include "kernels/kda/kda_chunk_ref.hpp"
#include "kernels/kda/kda_ref.hpp"
#include "kernels/mla/mla_ref.hpp"
#include "kernels/mla/mla_tiled_ref.hpp"
#include "kernels/permute/permute_ref.hpp"
#include "kernels/qb_histogram/qb_ref.hpp"
#include "kernels/rmsnorm/rmsnorm_ref.hpp"
#include "kernels/router/router_ref.hpp"
#include "kernels/situ_glu/situ_glu_ref.hpp"
#include "core/error.hpp"

namespace k3::kernels {

namespace {

using nlohmann::json;
constexpr const char* kSelfValidated = "cpu reference (checked against hand-derived values in tests/kernels)";

Timing time_it(const std::function<void()>& fn, int reps) {
  fn();  // warm-up: first touch of the buffers, instruction cache
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    samples.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return summarize(std::move(samples));
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

class CpuBackend final : public Backend {
 public:
  cost::DeviceIdentity identify() const override {
    cost::DeviceIdentity d;
    d.backend = "cpu";
    d.name = cpu_model_name();
    d.runtime = fmt::format("k3sim CPU references, {} hardware threads, single-threaded", std::thread::hardware_concurrency());
    d.memory_bytes = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    d.device_count = 1;
    return d;
  }

  std::vector<std::string> available_ops() const override {
    return {"hbm_copy", "gemm_peak", "situ_glu", "rmsnorm", "router", "qb_histogram", "permute", "gemm",
            "grouped_gemm", "mla_prefill", "mla_decode", "kda_forward", "kda_decode"};
  }

  std::vector<OpRun> measure(const std::string& op, bool quick) override {
    const int reps = quick ? 3 : 7;
    const std::vector<std::size_t> tokens = quick ? std::vector<std::size_t>{1, 7, 64}
                                                  : std::vector<std::size_t>{1, 7, 64, 256, 989};
    std::vector<OpRun> runs;
    auto add = [&](std::string cls, std::string peak, cost::WorkUnit unit, json shape, double flops, double bytes,
                   const std::function<void()>& fn) {
      runs.push_back({op, std::move(cls), std::move(peak), unit, std::move(shape), flops, bytes, time_it(fn, reps),
                      kSelfValidated});
    };
    if (op == "hbm_copy") {
      for (double mib : quick ? std::vector<double>{1, 16} : std::vector<double>{1, 16, 64}) {
        const auto n = static_cast<std::size_t>(mib * 1024 * 1024);
        std::vector<char> src(n, 1), dst(n, 0);
        add("copy", "hbm", cost::WorkUnit::kBytes, {{"bytes", n}}, 0, 2.0 * static_cast<double>(n),
            [&] { std::memcpy(dst.data(), src.data(), n); });
      }
    } else if (op == "gemm_peak") {
      for (std::size_t n : quick ? std::vector<std::size_t>{256} : std::vector<std::size_t>{512, 1024}) {
        auto a = random_eighths(n * n, 1), b = random_eighths(n * n, 2);
        std::vector<float> c(n * n);
        add("gemm_peak", "gemm_fp32", cost::WorkUnit::kFlops, {{"m", n}, {"n", n}, {"k", n}, {"dtype", "fp32"}},
            gemm_flops(n, n, n), 12.0 * static_cast<double>(n * n), [&] { gemm_ref(a, b, n, n, n, c); });
      }
    } else if (op == "situ_glu") {
      for (std::size_t t : tokens) {
        auto x = random_bf16(t * 2 * kExpertFfn, 3, -8, 8);
        std::vector<float> out(t * kExpertFfn);
        add("elementwise", "hbm", cost::WorkUnit::kBytes, {{"tokens", t}, {"width", kExpertFfn}}, 0,
            situ_glu_bytes(t, kExpertFfn), [&] { situ_glu_ref(x, t, kExpertFfn, out); });
      }
    } else if (op == "rmsnorm") {
      for (std::size_t w : {kLatent, kHidden}) {
        auto weight = random_bf16(w, 4, 0.5, 1.5);
        for (std::size_t t : tokens) {
          auto x = random_bf16(t * w, 5, -3, 3);
          std::vector<float> out(t * w);
          add("norm", "hbm", cost::WorkUnit::kBytes, {{"tokens", t}, {"width", w}}, 0, rmsnorm_bytes(t, w),
              [&] { rmsnorm_ref(x, weight, t, w, kRmsNormEps, out); });
        }
      }
    } else if (op == "router") {
      for (RouterShape s : {RouterShape{kRoutedExperts, kTopK, 1, 0}, RouterShape{kIsoExperts, kIsoTopK, 1, 0}}) {
        auto bias = random_float(s.experts, 6, -0.05, 0.05);
        for (std::size_t t : tokens) {
          auto logits = random_float(t * s.experts, 7, -4, 4);
          add("router", "hbm", cost::WorkUnit::kBytes, {{"tokens", t}, {"experts", s.experts}, {"top_k", s.top_k}}, 0,
              router_bytes(t, s), [&] { (void)route_ref(logits, bias, t, s); });
        }
      }
    } else if (op == "qb_histogram") {
      const QbHistogramShape s{};
      for (std::size_t t : tokens) {
        auto scores = random_float(t * s.experts, 8, 0, 1), cutoff = random_float(t, 9, 0.5, 1);
        add("qb_histogram", "hbm", cost::WorkUnit::kBytes, {{"tokens", t}, {"experts", s.experts}, {"bins", s.bins}}, 0,
            qb_histogram_bytes(t, s), [&] { (void)qb_histogram_ref(scores, cutoff, t, s); });
      }
    } else if (op == "permute") {
      for (std::size_t t : tokens) {
        auto x = random_bf16(t * kLatent, 10, -1, 1);
        auto layout = dispatch_layout_ref(random_routing(t, kTopK, kRoutedExperts, 11), t, kTopK, kRoutedExperts);
        std::vector<Bf16> out(t * kTopK * kLatent);
        add("permute", "hbm", cost::WorkUnit::kBytes, {{"tokens", t}, {"top_k", kTopK}, {"width", kLatent}}, 0,
            permute_bytes(t, kTopK, kLatent), [&] { permute_ref(x, layout, kTopK, kLatent, out); });
      }
    } else if (op == "gemm") {
      // A projection shape: q_a [1536, 7168] (DESIGN.md MLA weights).
      const std::size_t n = 1536, k = kHidden;
      auto b = random_eighths(n * k, 12);
      for (std::size_t m : quick ? std::vector<std::size_t>{1, 16} : std::vector<std::size_t>{1, 16, 64, 256}) {
        auto a = random_eighths(m * k, 13);
        std::vector<float> c(m * n);
        add("gemm_bf16", "gemm_fp32", cost::WorkUnit::kFlops, {{"m", m}, {"n", n}, {"k", k}, {"dtype", "fp32"}},
            gemm_flops(m, n, k), 4.0 * static_cast<double>(m * k + n * k + m * n),
            [&] { gemm_ref(a, b, m, n, k, c); });
      }
    } else if (op == "grouped_gemm") {
      const std::size_t experts = 2, n = kExpertFfn, k = kLatent;
      auto b = random_eighths(experts * n * k, 14);
      for (std::size_t per : quick ? std::vector<std::size_t>{1, 8} : std::vector<std::size_t>{1, 8, 64}) {
        std::vector<std::size_t> rows(experts, per);
        auto a = random_eighths(experts * per * k, 15);
        std::vector<float> c(experts * per * n);
        add("grouped_gemm_bf16", "gemm_fp32", cost::WorkUnit::kFlops,
            {{"experts", experts}, {"tokens_per_expert", per}, {"n", n}, {"k", k}, {"dtype", "fp32"}},
            static_cast<double>(experts) * gemm_flops(per, n, k),
            4.0 * static_cast<double>(experts * (per * k + n * k + per * n)),
            [&] { grouped_gemm_ref(a, b, rows, n, k, c); });
      }
    } else if (op == "mla_prefill" || op == "mla_decode" || op == "kda_forward" || op == "kda_decode") {
      attention_and_kda(op, quick, add);
    } else {
      throw core::InputError({"--ops", "", 0}, "the cpu backend has no op '" + op + "'");
    }
    return runs;
  }

 private:
  using Add = std::function<void(std::string, std::string, cost::WorkUnit, json, double, double,
                                 const std::function<void()>&)>;

  // The algorithms the CUDA backend times (tiled MLA, chunked KDA; the recurrence for the decode step), at
  // a few heads: the references are single-threaded and O(T^2) (prefill) or O(T d^2) per head.
  static void attention_and_kda(const std::string& op, bool quick, const Add& add) {
    using cost::WorkUnit;
    const std::size_t heads = 2, d = kKdaHeadDim, qk = kMlaQkDim, vd = kMlaVDim;
    const auto sizes = [&](std::vector<std::size_t> quick_sizes, std::vector<std::size_t> full_sizes) {
      return quick ? quick_sizes : full_sizes;
    };
    if (op == "mla_prefill") {
      for (std::size_t t : sizes({64}, {64, 256})) {
        auto q = random_float(t * heads * qk, 16, -1, 1), k = random_float(t * heads * qk, 17, -1, 1);
        auto v = random_float(t * heads * vd, 18, -1, 1), gate = random_float(t * heads * vd, 19, -4, 4);
        std::vector<float> o(t * heads * vd);
        add("attention", "gemm_fp32", WorkUnit::kFlops,
            {{"tokens", t}, {"heads", heads}, {"algorithm", "FlashAttention-2 tiles"}},
            mla_prefill_flops(t, heads, qk, vd), 4.0 * static_cast<double>(t * heads * (2 * qk + 3 * vd)),
            [&] { mla_prefill_tiled_ref(q, k, v, gate, t, heads, qk, vd, o); });
      }
    } else if (op == "mla_decode") {
      const std::size_t group = 16, dk = kMlaLatentKeyDim, dv = kMlaLatentValueDim;  // one head group
      const float scale = 1.0f / std::sqrt(static_cast<float>(qk));
      for (std::size_t len : sizes({256}, {256, 4096})) {
        auto q = random_float(group * dk, 20, -1, 1), cache = random_float(len * dk, 21, -1, 1);
        std::vector<float> o(group * dv);
        add("attention_decode", "hbm", WorkUnit::kBytes,
            {{"cache_len", len}, {"heads", group}, {"algorithm", "split + combine"}}, 0,
            mla_decode_bytes(group, len, dk, dv),
            [&] { mla_decode_split_ref(q, cache, group, len, dk, dv, scale, mla_decode_split_len(len), o); });
      }
    } else {
      const bool decode = op == "kda_decode";
      for (std::size_t t : decode ? std::vector<std::size_t>{1} : sizes({64}, {64, 256})) {
        auto q = random_float(t * heads * d, 22, -0.1, 0.1), k = random_float(t * heads * d, 23, -0.1, 0.1);
        auto v = random_float(t * heads * d, 24, -1, 1), a = random_float(t * heads * d, 25, 0.9, 1.0);
        auto beta = random_float(t * heads, 26, 0, 1), state = random_float(heads * d * d, 27, -1, 1);
        std::vector<float> o(t * heads * d);
        if (decode) {
          add("kda_decode", "hbm", WorkUnit::kBytes, {{"heads", heads}, {"head_dim", d}}, 0,
              kda_decode_bytes(heads, d), [&] { kda_recurrent_ref(q, k, v, a, beta, 1, heads, d, d, state, o); });
        } else {
          add("kda", "gemm_fp32", WorkUnit::kFlops,
              {{"tokens", t}, {"heads", heads}, {"head_dim", d}, {"algorithm", "chunkwise WY/UT, chunk 64"}},
              kda_chunk_flops(t, heads, d, kKdaChunk), 8.0 * static_cast<double>(heads * d * d),
              [&] { kda_chunk_ref(q, k, v, a, beta, t, heads, d, d, kKdaChunk, state, o); });
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace k3::kernels
