#pragma once
// Absorbed MLA decode split over the cache, then combined (mla_decode.cu; algorithm: mla_tiled_ref.hpp).
#include "kernels/common/device.cuh"

namespace k3::kernels {

// The runs' partial outputs and log-sum-exps for one (heads, cache length, dv); runs of
// mla_decode_split_len(cache_len) keys.
class MlaDecodeWorkspace {
 public:
  MlaDecodeWorkspace(std::size_t heads, std::size_t cache_len, std::size_t dv);
  std::size_t split_len() const { return split_len_; }
  std::size_t splits() const { return splits_; }
  std::size_t heads() const { return heads_; }
  std::size_t cache_len() const { return cache_len_; }
  std::size_t dv() const { return dv_; }

  DeviceBuffer<float> part_o, part_lse;  // [splits, H, dv], [splits, H]

 private:
  std::size_t heads_, cache_len_, dv_, split_len_, splits_;
};

// q [H, dk] BF16, cache [L, dk] BF16 (values = its first dv dims) -> o [H, dv] FP32. Two launches: the runs
// (grid runs x ceil(H / 16)), then the combine (one block per head). K3: dk 576, dv 512.
void launch_mla_decode(const __nv_bfloat16* q, const __nv_bfloat16* cache, float* o, std::size_t dk, float scale,
                       MlaDecodeWorkspace& ws, cudaStream_t stream);

}  // namespace k3::kernels
