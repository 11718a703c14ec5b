// MLA prefill as FlashAttention-2 on BF16 tensor cores (WMMA 16x16x16, FP32 accumulate): one block per
// (64-query tile, head), four warps of 16 query rows each. Per 64-key tile up to the causal diagonal:
// S = Q K^T (tensor cores) -> online softmax per row (running max m, sum l, FP32) -> P in BF16 ->
// O = diag(exp(m_old - m)) O + P V (tensor cores, O kept in shared memory as the accumulator). Each warp
// touches only its own rows of S, P and O, so only the K and V tile loads need the whole block. At the
// end o = sigmoid(gate) O / l. The algorithm is mla_prefill_tiled_ref (mla_tiled_ref.hpp).
#include <mma.h>

#include <cfloat>

#include "kernels/common/test_data.hpp"
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/mla/mla_prefill.cuh"
#include "kernels/mla/mla_tiled_ref.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "mla_prefill.cu needs BF16 tensor cores (sm_80 or newer)"
#endif

namespace k3::kernels {

namespace {

using namespace nvcuda;
using Bf = __nv_bfloat16;

constexpr unsigned kBr = 64, kBc = 64, kWarps = 4, kRows = kBr / kWarps;
static_assert(kBr == kMlaQueryTile && kBc == kMlaKeyTile && kRows == 16);

struct PrefillArgs {
  const Bf* q;
  const Bf* k;
  const Bf* v;
  const Bf* gate;
  float* o;
  unsigned tokens, heads, dqk, dv;
  float scale;
};

// Shared memory, bytes from the start (offsets multiples of 256 for WMMA).
struct PrefillLayout {
  unsigned dqk, dv;
  __host__ __device__ unsigned q() const { return 0; }                       // bf16 [64][dqk]
  __host__ __device__ unsigned k() const { return q() + kBr * dqk * 2; }     // bf16 [64][dqk]
  __host__ __device__ unsigned v() const { return k() + kBc * dqk * 2; }     // bf16 [64][dv]
  __host__ __device__ unsigned s() const { return v() + kBc * dv * 2; }      // float [64][64]
  __host__ __device__ unsigned p() const { return s() + kBr * kBc * 4; }     // bf16 [64][64]
  __host__ __device__ unsigned o() const { return p() + kBr * kBc * 2; }     // float [64][dv]
  __host__ __device__ unsigned stats() const { return o() + kBr * dv * 4; }  // float m, l, correction [64] each
  __host__ __device__ unsigned total() const { return stats() + 3 * kBr * 4; }
};

__device__ float warp_max(float x) {
  for (int off = 16; off > 0; off /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, off));
  return x;
}
__device__ float warp_sum(float x) {
  for (int off = 16; off > 0; off /= 2) x += __shfl_xor_sync(0xffffffffu, x, off);
  return x;
}

__global__ void mla_prefill_kernel(PrefillArgs a) {
  extern __shared__ __align__(256) unsigned char smem[];
  const PrefillLayout lay{a.dqk, a.dv};
  Bf* sq = reinterpret_cast<Bf*>(smem + lay.q());
  Bf* sk = reinterpret_cast<Bf*>(smem + lay.k());
  Bf* sv = reinterpret_cast<Bf*>(smem + lay.v());
  float* ss = reinterpret_cast<float*>(smem + lay.s());
  Bf* sp = reinterpret_cast<Bf*>(smem + lay.p());
  float* so = reinterpret_cast<float*>(smem + lay.o());
  float* row_max = reinterpret_cast<float*>(smem + lay.stats());
  float* row_sum = row_max + kBr;
  float* row_corr = row_sum + kBr;
  const unsigned q0 = blockIdx.x * kBr, h = blockIdx.y, tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const unsigned rows = min(kBr, a.tokens - q0), r0 = warp * kRows;
  const std::size_t qk_row = static_cast<std::size_t>(a.heads) * a.dqk, v_row = static_cast<std::size_t>(a.heads) * a.dv;

  for (unsigned e = tid; e < kBr * a.dqk; e += blockDim.x) {
    const unsigned r = e / a.dqk, c = e % a.dqk;
    sq[e] = r < rows ? a.q[(q0 + r) * qk_row + h * a.dqk + c] : __float2bfloat16(0.0f);
  }
  for (unsigned e = tid; e < kBr * a.dv; e += blockDim.x) so[e] = 0.0f;
  for (unsigned r = tid; r < kBr; r += blockDim.x) {
    row_max[r] = -INFINITY;
    row_sum[r] = 0.0f;
  }
  const unsigned key_tiles = (q0 + rows + kBc - 1) / kBc;  // causal: up to the tile of the last query
  for (unsigned kt = 0; kt < key_tiles; ++kt) {
    const unsigned k0 = kt * kBc, keys = min(kBc, a.tokens - k0);
    __syncthreads();  // every warp is done with the previous K, V tile
    for (unsigned e = tid; e < kBc * a.dqk; e += blockDim.x) {
      const unsigned r = e / a.dqk, c = e % a.dqk;
      sk[e] = r < keys ? a.k[(k0 + r) * qk_row + h * a.dqk + c] : __float2bfloat16(0.0f);
    }
    for (unsigned e = tid; e < kBc * a.dv; e += blockDim.x) {
      const unsigned r = e / a.dv, c = e % a.dv;
      sv[e] = r < keys ? a.v[(k0 + r) * v_row + h * a.dv + c] : __float2bfloat16(0.0f);
    }
    __syncthreads();
    // S = Q K^T for this warp's 16 rows: 4 tiles of 16 keys, dqk / 16 steps.
    for (unsigned jt = 0; jt < kBc / 16; ++jt) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
      for (unsigned kk = 0; kk < a.dqk; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, Bf, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, Bf, wmma::col_major> fb;  // K^T: K row-major = K^T col-major
        wmma::load_matrix_sync(fa, sq + r0 * a.dqk + kk, a.dqk);
        wmma::load_matrix_sync(fb, sk + jt * 16 * a.dqk + kk, a.dqk);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(ss + r0 * kBc + jt * 16, acc, kBc, wmma::mem_row_major);
    }
    __syncwarp();
    // Online softmax, one row at a time across the warp (two keys per lane). Masked: keys after the query
    // (causal), past the end, and rows past the end (their max stays -inf and their p 0).
    for (unsigned r = r0; r < r0 + kRows; ++r) {
      const unsigned i = q0 + r;
      float s[2];
      for (unsigned x = 0; x < 2; ++x) {
        const unsigned c = lane + 32 * x, j = k0 + c;
        s[x] = (r < rows && c < keys && j <= i) ? ss[r * kBc + c] * a.scale : -INFINITY;
      }
      const float new_max = fmaxf(row_max[r], warp_max(fmaxf(s[0], s[1])));
      const bool empty = new_max == -INFINITY;
      const float corr = empty ? 1.0f : __expf(row_max[r] - new_max);
      float part = 0;
      for (unsigned x = 0; x < 2; ++x) {
        const Bf p = __float2bfloat16(empty ? 0.0f : __expf(s[x] - new_max));
        sp[r * kBc + lane + 32 * x] = p;
        part += __bfloat162float(p);  // the sum of the weights P V uses, so the output stays convex
      }
      const float total = warp_sum(part);
      __syncwarp();
      if (lane == 0) {
        row_sum[r] = row_sum[r] * corr + total;
        row_max[r] = new_max;
        row_corr[r] = corr;
      }
    }
    __syncwarp();
    for (unsigned e = lane; e < kRows * a.dv; e += 32) so[r0 * a.dv + e] *= row_corr[r0 + e / a.dv];
    __syncwarp();
    // O += P V for this warp's rows: dv / 16 tiles, 4 steps over the keys.
    for (unsigned et = 0; et < a.dv / 16; ++et) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, so + r0 * a.dv + et * 16, a.dv, wmma::mem_row_major);
      for (unsigned kk = 0; kk < kBc; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, Bf, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, Bf, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, sp + r0 * kBc + kk, kBc);
        wmma::load_matrix_sync(fb, sv + kk * a.dv + et * 16, a.dv);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(so + r0 * a.dv + et * 16, acc, a.dv, wmma::mem_row_major);
    }
  }
  __syncthreads();
  for (unsigned e = tid; e < rows * a.dv; e += blockDim.x) {
    const unsigned r = e / a.dv, c = e % a.dv;
    const std::size_t at = (q0 + r) * v_row + h * a.dv + c;
    const float gate = __bfloat162float(a.gate[at]);
    a.o[at] = so[e] / row_sum[r] / (1.0f + __expf(-gate));
  }
}

}  // namespace

void launch_mla_prefill(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                        const __nv_bfloat16* gate, float* o, std::size_t tokens, std::size_t heads, std::size_t dqk,
                        std::size_t dv, cudaStream_t stream) {
  K3SIM_ASSERT(dqk % 16 == 0 && dv % 16 == 0 && dqk <= 256 && dv <= 256, "launch_mla_prefill: head dims multiples of 16 up to 256");
  if (tokens == 0) return;
  const PrefillLayout lay{static_cast<unsigned>(dqk), static_cast<unsigned>(dv)};
  const std::size_t smem = lay.total();
  K3_CUDA(cudaFuncSetAttribute(mla_prefill_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const PrefillArgs a{q, k, v, gate, o, static_cast<unsigned>(tokens), static_cast<unsigned>(heads),
                      static_cast<unsigned>(dqk), static_cast<unsigned>(dv), 1.0f / sqrtf(static_cast<float>(dqk))};
  const dim3 grid(static_cast<unsigned>((tokens + kBr - 1) / kBr), static_cast<unsigned>(heads));
  mla_prefill_kernel<<<grid, kWarps * 32, smem, stream>>>(a);
  K3_CUDA(cudaGetLastError());
}

std::vector<float> gpu::mla_prefill(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                                    std::span<const float> gate, std::size_t tokens, std::size_t heads,
                                    std::size_t dqk, std::size_t dv) {
  DeviceBuffer<Bf16> dq(to_bf16(q)), dk(to_bf16(k)), dvv(to_bf16(v)), dg(to_bf16(gate));
  DeviceBuffer<float> o(tokens * heads * dv);
  launch_mla_prefill(as_bf16(dq.get()), as_bf16(dk.get()), as_bf16(dvv.get()), as_bf16(dg.get()), o.get(), tokens,
                     heads, dqk, dv, nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  return o.download();
}

}  // namespace k3::kernels
