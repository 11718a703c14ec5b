#pragma once
// KDA's chunkwise forward on tensor cores (the algorithm and its derivation: kda_chunk_ref.hpp).
#include "kernels/common/device.cuh"

namespace k3::kernels {

// Per-chunk, per-head intermediates the first kernel writes and the state pass reads ([chunks, H, ...]):
// W = T (b K~) and the decayed Q and K as BF16 tensor-core operands, P = Tril(decayed Q K^T) in BF16,
// U~ = T (b V) in FP32 (it is added to, not multiplied), the chunk's total decay gamma_L in FP32.
class KdaChunkWorkspace {
 public:
  KdaChunkWorkspace(std::size_t tokens, std::size_t heads, std::size_t d);
  std::size_t tokens() const { return tokens_; }
  std::size_t heads() const { return heads_; }
  std::size_t d() const { return d_; }
  DeviceBuffer<std::uint16_t> w, q_decayed, k_to_end, p;  // BF16 bits
  DeviceBuffer<float> u, gamma_last;

 private:
  std::size_t tokens_, heads_, d_;
};

// q, k, v [T, H, d] BF16; a [T, H, d] FP32 in (0, 1]; beta [T, H] FP32; state [H, d, d] FP32 updated;
// o [T, H, d] FP32. d a multiple of 32, at most 128. Two launches: the chunk-parallel UT transform
// (grid chunks x heads), then the state pass (grid d/32 column slabs x heads, sequential over chunks).
void launch_kda_chunk(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, const float* a,
                      const float* beta, float* state, float* o, KdaChunkWorkspace& ws, cudaStream_t stream);

}  // namespace k3::kernels
