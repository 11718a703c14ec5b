#pragma once
// Host-level entry points of the CUDA kernels: host data in, host data out (allocation, copies and the
// launch happen inside). CUDA-free so that tests outside kernels/ can call them; built only with CUDA.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/common/bf16.hpp"
#include "kernels/permute/permute_ref.hpp"
#include "kernels/qb_histogram/qb_ref.hpp"
#include "kernels/router/router_ref.hpp"

namespace k3::kernels::gpu {

bool available();          // a CUDA device is visible and usable
std::string device_name();

std::vector<float> situ_glu(std::span<const Bf16> gate_up, std::size_t tokens, std::size_t width);
std::vector<float> rmsnorm(std::span<const Bf16> x, std::span<const Bf16> weight, std::size_t tokens,
                           std::size_t width, float eps);
RouterOutput route(std::span<const float> logits, std::span<const float> bias, std::size_t tokens,
                   const RouterShape& shape);
std::vector<std::uint32_t> qb_histogram(std::span<const float> scores, std::span<const float> cutoff,
                                        std::size_t tokens, const QbHistogramShape& shape);
std::vector<float> qb_quantile(std::span<const std::uint32_t> counts, const QbHistogramShape& shape, double q);
DispatchLayout dispatch_layout(std::span<const std::int32_t> expert, std::size_t tokens, std::size_t top_k,
                               std::size_t experts);
std::vector<Bf16> permute(std::span<const Bf16> x, std::span<const std::int32_t> expert, std::size_t tokens,
                          std::size_t top_k, std::size_t experts, std::size_t width);
std::vector<float> unpermute(std::span<const Bf16> y, std::span<const std::int32_t> position,
                             std::span<const float> gate, std::size_t tokens, std::size_t top_k, std::size_t width);
// c = a b^T with a [m, k], b [n, k]; dtype "bf16" (cuBLAS) or "fp8" (cuBLASLt, E4M3 inputs, BF16 output).
std::vector<float> gemm(std::span<const float> a, std::span<const float> b, std::size_t m, std::size_t n,
                        std::size_t k, const std::string& dtype);
bool fp8_supported();
// Experts packed as in grouped_gemm_ref; one cuBLAS grouped call (BF16).
std::vector<float> grouped_gemm(std::span<const float> a, std::span<const float> b, std::span<const std::size_t> tokens,
                                std::size_t n, std::size_t k);
// MLA: FlashAttention-2 prefill with K3's output gate (BF16 tensor cores) and the absorbed decode split over
// the cache; layouts as mla_prefill_tiled_ref and mla_decode_split_ref.
std::vector<float> mla_prefill(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                               std::span<const float> gate, std::size_t tokens, std::size_t heads, std::size_t dqk,
                               std::size_t dv);
std::vector<float> mla_decode(std::span<const float> q, std::span<const float> cache, std::size_t heads,
                              std::size_t cache_len, std::size_t dk, std::size_t dv, float scale);
// KDA: chunkwise forward on tensor cores over T tokens from `state` (updated; q, k, v rounded to BF16) and one
// recurrent decode step (FP32); layouts as kda_recurrent_ref.
std::vector<float> kda_forward(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                               std::span<const float> a, std::span<const float> beta, std::size_t tokens,
                               std::size_t heads, std::size_t d, std::vector<float>& state);
std::vector<float> kda_decode(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                              std::span<const float> a, std::span<const float> beta, std::size_t heads, std::size_t d,
                              std::vector<float>& state);
double hbm_copy_bytes_per_s(std::size_t bytes);  // one timed copy, for tests of the probe

}  // namespace k3::kernels::gpu
