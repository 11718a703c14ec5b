// Speed of the KDA and MLA references at K3's head shapes: the chunked KDA forward against the recurrence
// it replaces, and the tiled MLA forms the CUDA kernels follow (what the cpu calibration backend times).
#include <benchmark/benchmark.h>

#include <cmath>

#include "kernels/common/k3_shapes.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/kda/kda_chunk_ref.hpp"
#include "kernels/kda/kda_ref.hpp"
#include "kernels/mla/mla_ref.hpp"
#include "kernels/mla/mla_tiled_ref.hpp"

using namespace k3::kernels;

namespace {

template <bool Chunked>
void kda_forward(benchmark::State& state) {
  const auto t = static_cast<std::size_t>(state.range(0));
  const std::size_t h = 1, d = kKdaHeadDim;
  const auto q = random_float(t * h * d, 1, -0.1, 0.1), k = random_float(t * h * d, 2, -0.1, 0.1);
  const auto v = random_float(t * h * d, 3, -1, 1), a = random_float(t * h * d, 4, 0.9, 1.0);
  const auto beta = random_float(t * h, 5, 0, 1);
  auto s = random_float(h * d * d, 6, -1, 1);
  std::vector<float> o(t * h * d);
  for (auto _ : state) {
    if constexpr (Chunked) {
      kda_chunk_ref(q, k, v, a, beta, t, h, d, d, kKdaChunk, s, o);
    } else {
      kda_recurrent_ref(q, k, v, a, beta, t, h, d, d, s, o);
    }
    benchmark::DoNotOptimize(o.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * t));  // tokens
}

}  // namespace

static void BM_KdaChunkRef(benchmark::State& state) { kda_forward<true>(state); }
BENCHMARK(BM_KdaChunkRef)->Arg(64)->Arg(256);
static void BM_KdaRecurrentRef(benchmark::State& state) { kda_forward<false>(state); }
BENCHMARK(BM_KdaRecurrentRef)->Arg(64)->Arg(256);

static void BM_MlaPrefillTiledRef(benchmark::State& state) {
  const auto t = static_cast<std::size_t>(state.range(0));
  const std::size_t h = 1;
  const auto q = random_float(t * h * kMlaQkDim, 7, -1, 1), k = random_float(t * h * kMlaQkDim, 8, -1, 1);
  const auto v = random_float(t * h * kMlaVDim, 9, -1, 1), gate = random_float(t * h * kMlaVDim, 10, -4, 4);
  std::vector<float> o(t * h * kMlaVDim);
  for (auto _ : state) {
    mla_prefill_tiled_ref(q, k, v, gate, t, h, kMlaQkDim, kMlaVDim, o);
    benchmark::DoNotOptimize(o.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * t));  // query tokens
}
BENCHMARK(BM_MlaPrefillTiledRef)->Arg(256)->Arg(1024);

static void BM_MlaDecodeSplitRef(benchmark::State& state) {
  const auto len = static_cast<std::size_t>(state.range(0));
  const std::size_t h = 16;
  const float scale = 1.0f / std::sqrt(static_cast<float>(kMlaQkDim));
  const auto q = random_float(h * kMlaLatentKeyDim, 11, -1, 1), cache = random_float(len * kMlaLatentKeyDim, 12, -1, 1);
  std::vector<float> o(h * kMlaLatentValueDim);
  for (auto _ : state) {
    mla_decode_split_ref(q, cache, h, len, kMlaLatentKeyDim, kMlaLatentValueDim, scale, mla_decode_split_len(len), o);
    benchmark::DoNotOptimize(o.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(mla_decode_bytes(h, len, kMlaLatentKeyDim, kMlaLatentValueDim)));
}
BENCHMARK(BM_MlaDecodeSplitRef)->Arg(4096);
