#pragma once
#include "kernels/common/device.cuh"

namespace k3::kernels {

// Scratch for the dispatch layout of up to `copies` token copies over `experts` experts.
struct DispatchScratch {
  DeviceBuffer<std::int32_t> chunk_counts;  // [chunks, experts]
  DispatchScratch(std::size_t copies, std::size_t experts);
};

// counts, offsets [experts]; position [copies]; source_token [copies] (the stable layout of permute_ref.hpp).
void launch_dispatch_layout(const std::int32_t* expert, std::int32_t* counts, std::int32_t* offsets,
                            std::int32_t* position, std::int32_t* source_token, std::size_t tokens, std::size_t top_k,
                            std::size_t experts, DispatchScratch& scratch, cudaStream_t stream);
// out[position[p]] = x[p / k]; BF16 rows of `width`.
void launch_permute_rows(const __nv_bfloat16* x, const std::int32_t* position, __nv_bfloat16* out, std::size_t tokens,
                         std::size_t top_k, std::size_t width, cudaStream_t stream);
// out[t] = sum_s gate[t, s] y[position[t k + s]], BF16 out.
void launch_unpermute(const __nv_bfloat16* y, const std::int32_t* position, const float* gate, __nv_bfloat16* out,
                      std::size_t tokens, std::size_t top_k, std::size_t width, cudaStream_t stream);

}  // namespace k3::kernels
