// Absorbed MLA decode over the compressed cache, flash-decoding style on BF16 tensor cores (WMMA, FP32
// accumulate). All heads share the cache, so a block takes 16 heads (one WMMA row tile) and one run of the
// cache (mla_decode_split_len keys): per 64-key tile, S = Q C^T (16 x 64, one 16-key tile per warp over
// 576 dims), the online softmax per head, then O += P C[:, 0:512] (each warp 128 of the 512 value
// columns). Each run writes its normalised output and log-sum-exp; a second kernel combines the runs.
// The algorithm is mla_decode_split_ref (mla_tiled_ref.hpp).
#include <mma.h>

#include "kernels/common/test_data.hpp"
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/mla/mla_decode.cuh"
#include "kernels/mla/mla_tiled_ref.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "mla_decode.cu needs BF16 tensor cores (sm_80 or newer)"
#endif

namespace k3::kernels {

namespace {

using namespace nvcuda;
using Bf = __nv_bfloat16;

constexpr unsigned kHeads = 16, kKeys = 64, kWarps = 4;
static_assert(kKeys == kMlaKeyTile && kKeys / 16 == kWarps);

struct DecodeArgs {
  const Bf* q;
  const Bf* cache;
  float* part_o;    // [splits, H, dv]
  float* part_lse;  // [splits, H]
  unsigned heads, cache_len, dk, dv, split_len;
  float scale;
};

struct DecodeLayout {
  unsigned dk, dv;
  __host__ __device__ unsigned q() const { return 0; }                          // bf16 [16][dk]
  __host__ __device__ unsigned c() const { return q() + kHeads * dk * 2; }      // bf16 [64][dk]
  __host__ __device__ unsigned s() const { return c() + kKeys * dk * 2; }       // float [16][64]
  __host__ __device__ unsigned p() const { return s() + kHeads * kKeys * 4; }   // bf16 [16][64]
  __host__ __device__ unsigned o() const { return p() + kHeads * kKeys * 2; }   // float [16][dv]
  __host__ __device__ unsigned stats() const { return o() + kHeads * dv * 4; }  // float m, l, correction [16]
  __host__ __device__ unsigned total() const { return stats() + 3 * kHeads * 4; }
};

__device__ float warp_max(float x) {
  for (int off = 16; off > 0; off /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, off));
  return x;
}
__device__ float warp_sum(float x) {
  for (int off = 16; off > 0; off /= 2) x += __shfl_xor_sync(0xffffffffu, x, off);
  return x;
}

__global__ void mla_decode_split_kernel(DecodeArgs a) {
  extern __shared__ __align__(256) unsigned char smem[];
  const DecodeLayout lay{a.dk, a.dv};
  Bf* sq = reinterpret_cast<Bf*>(smem + lay.q());
  Bf* sc = reinterpret_cast<Bf*>(smem + lay.c());
  float* ss = reinterpret_cast<float*>(smem + lay.s());
  Bf* sp = reinterpret_cast<Bf*>(smem + lay.p());
  float* so = reinterpret_cast<float*>(smem + lay.o());
  float* head_max = reinterpret_cast<float*>(smem + lay.stats());
  float* head_sum = head_max + kHeads;
  float* head_corr = head_sum + kHeads;
  const unsigned split = blockIdx.x, h0 = blockIdx.y * kHeads, tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const unsigned heads = min(kHeads, a.heads - h0);
  const unsigned begin = split * a.split_len, end = min(a.cache_len, begin + a.split_len);

  for (unsigned e = tid; e < kHeads * a.dk; e += blockDim.x) {
    const unsigned r = e / a.dk;
    sq[e] = r < heads ? a.q[static_cast<std::size_t>(h0) * a.dk + e] : __float2bfloat16(0.0f);
  }
  for (unsigned e = tid; e < kHeads * a.dv; e += blockDim.x) so[e] = 0.0f;
  for (unsigned r = tid; r < kHeads; r += blockDim.x) {
    head_max[r] = -INFINITY;
    head_sum[r] = 0.0f;
  }
  for (unsigned k0 = begin; k0 < end; k0 += kKeys) {
    const unsigned keys = min(kKeys, end - k0);
    __syncthreads();  // the previous tile's P C is done
    for (unsigned e = tid; e < kKeys * a.dk; e += blockDim.x) {
      sc[e] = e / a.dk < keys ? a.cache[static_cast<std::size_t>(k0) * a.dk + e] : __float2bfloat16(0.0f);
    }
    __syncthreads();
    {  // S = Q C^T: warp w scores keys 16w..16w+15 for the 16 heads.
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
      for (unsigned kk = 0; kk < a.dk; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, Bf, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, Bf, wmma::col_major> fb;  // C^T: C row-major = C^T col-major
        wmma::load_matrix_sync(fa, sq + kk, a.dk);
        wmma::load_matrix_sync(fb, sc + warp * 16 * a.dk + kk, a.dk);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(ss + warp * 16, acc, kKeys, wmma::mem_row_major);
    }
    __syncthreads();
    // Online softmax: warp w takes heads 4w..4w+3, two keys per lane.
    for (unsigned r = warp * (kHeads / kWarps); r < (warp + 1) * (kHeads / kWarps); ++r) {
      float s[2];
      for (unsigned x = 0; x < 2; ++x) {
        const unsigned c = lane + 32 * x;
        s[x] = c < keys ? ss[r * kKeys + c] * a.scale : -INFINITY;
      }
      const float new_max = fmaxf(head_max[r], warp_max(fmaxf(s[0], s[1])));  // finite: a tile has >= 1 key
      const float corr = __expf(head_max[r] - new_max);
      float part = 0;
      for (unsigned x = 0; x < 2; ++x) {
        const Bf p = __float2bfloat16(__expf(s[x] - new_max));
        sp[r * kKeys + lane + 32 * x] = p;
        part += __bfloat162float(p);
      }
      const float total = warp_sum(part);
      __syncwarp();
      if (lane == 0) {
        head_sum[r] = head_sum[r] * corr + total;
        head_max[r] = new_max;
        head_corr[r] = corr;
      }
    }
    __syncthreads();
    // O = diag(corr) O + P C[:, 0:dv]: warp w owns value columns [w dv/4, (w+1) dv/4).
    const unsigned cols = a.dv / kWarps, c0 = warp * cols;
    for (unsigned e = lane; e < kHeads * cols; e += 32) so[(e / cols) * a.dv + c0 + e % cols] *= head_corr[e / cols];
    __syncwarp();
    for (unsigned et = 0; et < cols / 16; ++et) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, so + c0 + et * 16, a.dv, wmma::mem_row_major);
      for (unsigned kk = 0; kk < kKeys; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, Bf, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, Bf, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, sp + kk, kKeys);
        wmma::load_matrix_sync(fb, sc + kk * a.dk + c0 + et * 16, a.dk);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(so + c0 + et * 16, acc, a.dv, wmma::mem_row_major);
    }
  }
  __syncthreads();
  for (unsigned e = tid; e < heads * a.dv; e += blockDim.x) {
    const unsigned r = e / a.dv;
    a.part_o[(static_cast<std::size_t>(split) * a.heads + h0) * a.dv + e] = so[e] / head_sum[r];
  }
  for (unsigned r = tid; r < heads; r += blockDim.x) {
    a.part_lse[static_cast<std::size_t>(split) * a.heads + h0 + r] = head_max[r] + __logf(head_sum[r]);
  }
}

// o = sum_s exp(lse_s - M) o_s / sum_s exp(lse_s - M), M = max_s lse_s; one block per head.
__global__ void mla_decode_combine_kernel(const float* __restrict__ part_o, const float* __restrict__ part_lse,
                                          float* __restrict__ o, unsigned splits, unsigned heads, unsigned dv) {
  const unsigned h = blockIdx.x;
  float top = -INFINITY;
  for (unsigned s = 0; s < splits; ++s) top = fmaxf(top, part_lse[s * heads + h]);
  float total = 0;
  for (unsigned s = 0; s < splits; ++s) total += __expf(part_lse[s * heads + h] - top);
  for (unsigned e = threadIdx.x; e < dv; e += blockDim.x) {
    float acc = 0;
    for (unsigned s = 0; s < splits; ++s) {
      acc += __expf(part_lse[s * heads + h] - top) * part_o[(static_cast<std::size_t>(s) * heads + h) * dv + e];
    }
    o[static_cast<std::size_t>(h) * dv + e] = acc / total;
  }
}

}  // namespace

namespace {
std::size_t runs_of(std::size_t cache_len) {
  const std::size_t len = mla_decode_split_len(cache_len);
  return (cache_len + len - 1) / len;
}
}  // namespace

MlaDecodeWorkspace::MlaDecodeWorkspace(std::size_t heads, std::size_t cache_len, std::size_t dv)
    : part_o(runs_of(cache_len) * heads * dv), part_lse(runs_of(cache_len) * heads), heads_(heads),
      cache_len_(cache_len), dv_(dv), split_len_(mla_decode_split_len(cache_len)), splits_(runs_of(cache_len)) {}

void launch_mla_decode(const __nv_bfloat16* q, const __nv_bfloat16* cache, float* o, std::size_t dk, float scale,
                       MlaDecodeWorkspace& ws, cudaStream_t stream) {
  const std::size_t heads = ws.heads(), dv = ws.dv();
  K3SIM_ASSERT(dk % 16 == 0 && dv % (16 * kWarps) == 0 && dv <= dk && dk <= 576 && ws.cache_len() >= 1,
               "launch_mla_decode: dk a multiple of 16 up to 576, dv a multiple of 64 up to dk, a nonempty cache");
  const DecodeLayout lay{static_cast<unsigned>(dk), static_cast<unsigned>(dv)};
  const std::size_t smem = lay.total();
  K3_CUDA(cudaFuncSetAttribute(mla_decode_split_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const DecodeArgs a{q, cache, ws.part_o.get(), ws.part_lse.get(), static_cast<unsigned>(heads),
                     static_cast<unsigned>(ws.cache_len()), static_cast<unsigned>(dk), static_cast<unsigned>(dv),
                     static_cast<unsigned>(ws.split_len()), scale};
  const dim3 grid(static_cast<unsigned>(ws.splits()), static_cast<unsigned>((heads + kHeads - 1) / kHeads));
  mla_decode_split_kernel<<<grid, kWarps * 32, smem, stream>>>(a);
  K3_CUDA(cudaGetLastError());
  mla_decode_combine_kernel<<<static_cast<unsigned>(heads), 128, 0, stream>>>(
      ws.part_o.get(), ws.part_lse.get(), o, static_cast<unsigned>(ws.splits()), static_cast<unsigned>(heads),
      static_cast<unsigned>(dv));
  K3_CUDA(cudaGetLastError());
}

std::vector<float> gpu::mla_decode(std::span<const float> q, std::span<const float> cache, std::size_t heads,
                                   std::size_t cache_len, std::size_t dk, std::size_t dv, float scale) {
  DeviceBuffer<Bf16> dq(to_bf16(q)), dc(to_bf16(cache));
  DeviceBuffer<float> o(heads * dv);
  MlaDecodeWorkspace ws(heads, cache_len, dv);
  launch_mla_decode(as_bf16(dq.get()), as_bf16(dc.get()), o.get(), dk, scale, ws, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return o.download();
}

}  // namespace k3::kernels
