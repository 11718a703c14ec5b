// KDA's chunkwise forward with BF16 tensor cores (WMMA 16x16x16, FP32 accumulate); the math, the sub-chunk
// split that keeps every decay factor <= 1, and the tolerance are in kda_chunk_ref.hpp.
//  1. kda_chunk_prepare, one block per (chunk, head), chunks in parallel: the decayed pair products A and P
//     (across sub-chunks on tensor cores, within a sub-chunk pairwise on CUDA cores), T = (I + A)^-1 by
//     forward substitution, W = T (b K~) and U~ = T (b V) on tensor cores.
//  2. kda_chunk_state, one block per (32-column slab of the state, head): the state's columns evolve
//     independently, so each block walks the chunks in order with its slab in shared memory:
//     U = U~ - W S, O = (gamma Q) S + P U, S = Diag(gamma_L) S + (K gamma_L / gamma)^T U. The state stays
//     FP32; its products use it as two BF16 operands (high and low part), so it is not rounded to BF16.
#include <mma.h>

#include "kernels/common/k3_shapes.hpp"
#include "kernels/common/test_data.hpp"
#include "kernels/gpu/gpu_ops.hpp"
#include "kernels/kda/kda_chunk.cuh"
#include "kernels/kda/kda_chunk_ref.hpp"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "kda_chunk.cu needs BF16 tensor cores (sm_80 or newer)"
#endif

namespace k3::kernels {

namespace {

using namespace nvcuda;
using Bf = __nv_bfloat16;
using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, Bf, wmma::row_major>;
using FragACol = wmma::fragment<wmma::matrix_a, 16, 16, 16, Bf, wmma::col_major>;
using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 16, Bf, wmma::row_major>;
using FragBCol = wmma::fragment<wmma::matrix_b, 16, 16, 16, Bf, wmma::col_major>;
using FragC = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

constexpr unsigned kC = 64;                 // chunk (kKdaChunk)
constexpr unsigned kSub = 16;               // sub-chunk = WMMA tile edge (kKdaSubChunk)
constexpr unsigned kMaxD = 128;
constexpr unsigned kPrepareWarps = 8;
constexpr unsigned kSlab = 32;              // state columns per block in the state pass
constexpr unsigned kStateWarps = 4;
static_assert(kC == kKdaChunk && kSub == kKdaSubChunk);

struct Workspace {
  Bf *w, *q_decayed, *k_to_end, *p;
  float *u, *gamma_last;
};

// Shared memory of kda_chunk_prepare, in bytes from the start; every offset a multiple of 256 for WMMA.
struct PrepareLayout {
  unsigned d;
  __host__ __device__ unsigned g() const { return 0; }                          // float [64][d]: cumulative log decay
  __host__ __device__ unsigned q() const { return g() + kC * d * 4; }           // bf16 [64][d]
  __host__ __device__ unsigned k() const { return q() + kC * d * 2; }           // bf16 [64][d]
  __host__ __device__ unsigned a() const { return k() + kC * d * 2; }           // float [64][64]: A, then b_i A
  __host__ __device__ unsigned p() const { return a() + kC * kC * 4; }          // float [64][64]: P
  __host__ __device__ unsigned t() const { return p() + kC * kC * 4; }          // float [64][64]: T
  __host__ __device__ unsigned beta() const { return t() + kC * kC * 4; }       // float [64]
  __host__ __device__ unsigned scratch() const { return beta() + 256; }         // float [warps][16][16]
  __host__ __device__ unsigned region() const { return scratch() + kPrepareWarps * 256 * 4; }
  // Phase 1: x_k, x_q [16][d] and y [48][d] (bf16); phase 2: T [64][64], b K~ and b V [64][d] (bf16).
  __host__ __device__ unsigned total() const { return region() + kC * kC * 2 + 2 * kC * d * 2; }
};

__global__ void kda_chunk_prepare(const Bf* __restrict__ q, const Bf* __restrict__ k, const Bf* __restrict__ v,
                                  const float* __restrict__ a, const float* __restrict__ beta, Workspace ws,
                                  unsigned tokens, unsigned heads, unsigned d) {
  extern __shared__ __align__(256) unsigned char smem[];
  const PrepareLayout lay{d};
  float* g = reinterpret_cast<float*>(smem + lay.g());
  Bf* sq = reinterpret_cast<Bf*>(smem + lay.q());
  Bf* sk = reinterpret_cast<Bf*>(smem + lay.k());
  float* sa = reinterpret_cast<float*>(smem + lay.a());
  float* sp = reinterpret_cast<float*>(smem + lay.p());
  float* st = reinterpret_cast<float*>(smem + lay.t());
  float* sbeta = reinterpret_cast<float*>(smem + lay.beta());
  float* scratch = reinterpret_cast<float*>(smem + lay.scratch()) + (threadIdx.x / 32) * 256;
  Bf* region = reinterpret_cast<Bf*>(smem + lay.region());
  const unsigned chunk = blockIdx.x, h = blockIdx.y, tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const unsigned t0 = chunk * kC, len = min(kC, tokens - t0), nthreads = blockDim.x;
  const std::size_t slot = static_cast<std::size_t>(chunk) * heads + h;  // workspace index

  // Load the chunk; rows past the end are k = q = 0, b = 0, a = 1: they write nothing and keep gamma.
  for (unsigned i = tid; i < kC * d; i += nthreads) {
    const unsigned r = i / d, c = i % d;
    const std::size_t at = (static_cast<std::size_t>(t0 + r) * heads + h) * d + c;
    const bool ok = r < len;
    sq[i] = ok ? q[at] : __float2bfloat16(0.0f);
    sk[i] = ok ? k[at] : __float2bfloat16(0.0f);
    g[i] = ok ? logf(a[at]) : 0.0f;
  }
  for (unsigned r = tid; r < kC; r += nthreads) sbeta[r] = r < len ? beta[static_cast<std::size_t>(t0 + r) * heads + h] : 0.0f;
  __syncthreads();
  for (unsigned c = tid; c < d; c += nthreads) {
    for (unsigned r = 1; r < kC; ++r) g[r * d + c] += g[(r - 1) * d + c];
  }
  __syncthreads();

  // Diagonal 16x16 blocks pairwise (exp(G_i - G_j) <= 1 for j <= i); zeros above the diagonal.
  for (unsigned e = tid; e < kC * kC; e += nthreads) {
    const unsigned i = e / kC, j = e % kC;
    float acc_k = 0, acc_q = 0;
    if (j <= i && i / kSub == j / kSub) {
      for (unsigned c = 0; c < d; ++c) {
        const float kj = __bfloat162float(sk[j * d + c]) * __expf(g[i * d + c] - g[j * d + c]);
        acc_k += __bfloat162float(sk[i * d + c]) * kj;
        acc_q += __bfloat162float(sq[i * d + c]) * kj;
      }
    }
    if (j > i || i / kSub == j / kSub) {
      sa[e] = j < i ? sbeta[i] * acc_k : 0.0f;
      sp[e] = acc_q;
    }
  }
  // Blocks below the diagonal on tensor cores, both operands scaled to the start s of row block I.
  Bf* x_k = region;
  Bf* x_q = region + kSub * d;
  Bf* y = region + 2 * kSub * d;
  for (unsigned blk = 1; blk < kC / kSub; ++blk) {
    const unsigned s = blk * kSub;
    for (unsigned e = tid; e < kSub * d; e += nthreads) {
      const unsigned r = s + e / d, c = e % d;
      const float to_start = __expf(g[r * d + c] - g[s * d + c]);
      x_k[e] = __float2bfloat16(__bfloat162float(sk[r * d + c]) * to_start);
      x_q[e] = __float2bfloat16(__bfloat162float(sq[r * d + c]) * to_start);
    }
    for (unsigned e = tid; e < s * d; e += nthreads) {
      const unsigned j = e / d, c = e % d;
      y[e] = __float2bfloat16(__bfloat162float(sk[e]) * __expf(g[s * d + c] - g[j * d + c]));
    }
    __syncthreads();
    if (warp < 2 * blk) {
      const bool is_p = warp >= blk;
      const unsigned col_blk = warp % blk;
      FragC acc;
      wmma::fill_fragment(acc, 0.0f);
      for (unsigned kk = 0; kk < d; kk += 16) {
        FragA fa;
        FragBCol fb;  // y^T: y is row-major [j][c], so its transpose is column-major
        wmma::load_matrix_sync(fa, (is_p ? x_q : x_k) + kk, d);
        wmma::load_matrix_sync(fb, y + col_blk * kSub * d + kk, d);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync((is_p ? sp : sa) + s * kC + col_blk * kSub, acc, kC, wmma::mem_row_major);
    }
    __syncthreads();
  }
  for (unsigned e = tid; e < kC * kC; e += nthreads) {
    const unsigned i = e / kC, j = e % kC;
    if (j / kSub < i / kSub) sa[e] *= sbeta[i];
    st[e] = i == j ? 1.0f : 0.0f;
  }
  __syncthreads();
  // T = (I + A)^-1 row by row: T_ij = -sum_{j<=m<i} A_im T_mj.
  for (unsigned i = 1; i < kC; ++i) {
    if (tid < i) {
      float acc = 0;
      for (unsigned m = tid; m < i; ++m) acc += sa[i * kC + m] * st[m * kC + tid];
      st[i * kC + tid] = -acc;
    }
    __syncthreads();
  }

  // Elementwise outputs: P (BF16), gamma Q, K gamma_L / gamma, gamma_L; operands of phase 2.
  Bf* t_b = region;
  Bf* bk = region + kC * kC;
  Bf* bv = bk + kC * d;
  const float* g_last = g + (kC - 1) * d;  // = G at the last real token (padded rows have a = 1)
  for (unsigned e = tid; e < kC * kC; e += nthreads) {
    ws.p[slot * kC * kC + e] = __float2bfloat16(e % kC <= e / kC ? sp[e] : 0.0f);
    t_b[e] = __float2bfloat16(st[e]);
  }
  for (unsigned e = tid; e < kC * d; e += nthreads) {
    const unsigned r = e / d, c = e % d;
    const float kf = __bfloat162float(sk[e]), gamma = __expf(g[e]);
    ws.q_decayed[slot * kC * d + e] = __float2bfloat16(__bfloat162float(sq[e]) * gamma);
    ws.k_to_end[slot * kC * d + e] = __float2bfloat16(kf * __expf(g_last[c] - g[e]));
    bk[e] = __float2bfloat16(sbeta[r] * kf * gamma);
    const std::size_t at = (static_cast<std::size_t>(t0 + r) * heads + h) * d + c;
    bv[e] = __float2bfloat16(r < len ? sbeta[r] * __bfloat162float(v[at]) : 0.0f);
  }
  for (unsigned c = tid; c < d; c += nthreads) ws.gamma_last[slot * d + c] = __expf(g_last[c]);
  __syncthreads();

  // W = T (b K~) to BF16 through a per-warp tile, U~ = T (b V) straight to FP32.
  const unsigned col_tiles = d / 16, tiles = 2 * (kC / 16) * col_tiles;
  for (unsigned tile = warp; tile < tiles; tile += kPrepareWarps) {
    const bool is_u = tile >= tiles / 2;
    const unsigned rest = tile % (tiles / 2), ti = rest / col_tiles, tj = rest % col_tiles;
    FragC acc;
    wmma::fill_fragment(acc, 0.0f);
    for (unsigned kk = 0; kk < kC; kk += 16) {
      FragA fa;
      FragB fb;
      wmma::load_matrix_sync(fa, t_b + ti * 16 * kC + kk, kC);
      wmma::load_matrix_sync(fb, (is_u ? bv : bk) + kk * d + tj * 16, d);
      wmma::mma_sync(acc, fa, fb, acc);
    }
    const std::size_t at = slot * kC * d + ti * 16 * d + tj * 16;
    if (is_u) {
      wmma::store_matrix_sync(ws.u + at, acc, d, wmma::mem_row_major);
    } else {
      wmma::store_matrix_sync(scratch, acc, 16, wmma::mem_row_major);
      __syncwarp();
      for (unsigned e = lane; e < 256; e += 32) ws.w[at + (e / 16) * d + e % 16] = __float2bfloat16(scratch[e]);
      __syncwarp();
    }
  }
}

__device__ void split_bf16(float x, Bf& hi, Bf& lo) {
  hi = __float2bfloat16(x);
  lo = __float2bfloat16(x - __bfloat162float(hi));
}

__global__ void kda_chunk_state(const Workspace ws, float* __restrict__ state, float* __restrict__ o,
                                unsigned tokens, unsigned heads, unsigned d) {
  extern __shared__ __align__(256) unsigned char smem[];
  float* s = reinterpret_cast<float*>(smem);            // [d][32]
  float* u = s + d * kSlab;                             // [64][32]
  float* out = u + kC * kSlab;                          // [64][32]
  Bf* s_hi = reinterpret_cast<Bf*>(out + kC * kSlab);   // [d][32]: S = s_hi + s_lo to 2^-17, so the
  Bf* s_lo = s_hi + d * kSlab;                          // products with the carried state lose no more
  Bf* u_b = s_lo + d * kSlab;                           // than FP32 would over a long sequence; [64][32]
  const unsigned slab = blockIdx.x * kSlab, h = blockIdx.y, tid = threadIdx.x, warp = tid / 32;
  float* head_state = state + static_cast<std::size_t>(h) * d * d;
  for (unsigned e = tid; e < d * kSlab; e += blockDim.x) {
    s[e] = head_state[(e / kSlab) * d + slab + e % kSlab];
    split_bf16(s[e], s_hi[e], s_lo[e]);
  }
  __syncthreads();
  const unsigned chunks = (tokens + kC - 1) / kC;
  for (unsigned chunk = 0; chunk < chunks; ++chunk) {
    const std::size_t slot = static_cast<std::size_t>(chunk) * heads + h;
    const std::size_t base = slot * kC * d;
    // U = U~ - W S: 4 x 2 tiles of 16, two per warp; W negated in the fragment (exact in BF16).
    for (unsigned tile = warp; tile < 8; tile += kStateWarps) {
      const unsigned ti = tile / 2, tj = tile % 2;
      FragC acc;
      wmma::load_matrix_sync(acc, ws.u + base + ti * 16 * d + slab + tj * 16, d, wmma::mem_row_major);
      for (unsigned kk = 0; kk < d; kk += 16) {
        FragA fa;
        FragB hi, lo;
        wmma::load_matrix_sync(fa, ws.w + base + ti * 16 * d + kk, d);
        for (int x = 0; x < fa.num_elements; ++x) fa.x[x] = __hneg(fa.x[x]);
        wmma::load_matrix_sync(hi, s_hi + kk * kSlab + tj * 16, kSlab);
        wmma::load_matrix_sync(lo, s_lo + kk * kSlab + tj * 16, kSlab);
        wmma::mma_sync(acc, fa, hi, acc);
        wmma::mma_sync(acc, fa, lo, acc);
      }
      wmma::store_matrix_sync(u + ti * 16 * kSlab + tj * 16, acc, kSlab, wmma::mem_row_major);
    }
    __syncthreads();
    for (unsigned e = tid; e < kC * kSlab; e += blockDim.x) u_b[e] = __float2bfloat16(u[e]);
    for (unsigned e = tid; e < d * kSlab; e += blockDim.x) s[e] *= ws.gamma_last[slot * d + e / kSlab];
    __syncthreads();
    // O = (gamma Q) S + P U  (reads the BF16 pair, the old state) and S = Diag(gamma_L) S + K_end^T U.
    for (unsigned tile = warp; tile < 8; tile += kStateWarps) {
      const unsigned ti = tile / 2, tj = tile % 2;
      FragC acc;
      wmma::fill_fragment(acc, 0.0f);
      for (unsigned kk = 0; kk < d; kk += 16) {
        FragA fa;
        FragB hi, lo;
        wmma::load_matrix_sync(fa, ws.q_decayed + base + ti * 16 * d + kk, d);
        wmma::load_matrix_sync(hi, s_hi + kk * kSlab + tj * 16, kSlab);
        wmma::load_matrix_sync(lo, s_lo + kk * kSlab + tj * 16, kSlab);
        wmma::mma_sync(acc, fa, hi, acc);
        wmma::mma_sync(acc, fa, lo, acc);
      }
      for (unsigned kk = 0; kk < kC; kk += 16) {
        FragA fa;
        FragB fb;
        wmma::load_matrix_sync(fa, ws.p + slot * kC * kC + ti * 16 * kC + kk, kC);
        wmma::load_matrix_sync(fb, u_b + kk * kSlab + tj * 16, kSlab);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(out + ti * 16 * kSlab + tj * 16, acc, kSlab, wmma::mem_row_major);
    }
    for (unsigned tile = warp; tile < 2 * (d / 16); tile += kStateWarps) {
      const unsigned ti = tile / 2, tj = tile % 2;
      FragC acc;
      wmma::load_matrix_sync(acc, s + ti * 16 * kSlab + tj * 16, kSlab, wmma::mem_row_major);
      for (unsigned kk = 0; kk < kC; kk += 16) {
        FragACol fa;  // K_end^T: K_end is row-major [r][c], so its transpose is column-major
        FragB fb;
        wmma::load_matrix_sync(fa, ws.k_to_end + base + kk * d + ti * 16, d);
        wmma::load_matrix_sync(fb, u_b + kk * kSlab + tj * 16, kSlab);
        wmma::mma_sync(acc, fa, fb, acc);
      }
      wmma::store_matrix_sync(s + ti * 16 * kSlab + tj * 16, acc, kSlab, wmma::mem_row_major);
    }
    __syncthreads();
    const unsigned t0 = chunk * kC, len = min(kC, tokens - t0);
    for (unsigned e = tid; e < len * kSlab; e += blockDim.x) {
      o[(static_cast<std::size_t>(t0 + e / kSlab) * heads + h) * d + slab + e % kSlab] = out[e];
    }
    for (unsigned e = tid; e < d * kSlab; e += blockDim.x) split_bf16(s[e], s_hi[e], s_lo[e]);
    __syncthreads();
  }
  for (unsigned e = tid; e < d * kSlab; e += blockDim.x) head_state[(e / kSlab) * d + slab + e % kSlab] = s[e];
}

std::size_t chunks_of(std::size_t tokens) { return (tokens + kC - 1) / kC; }

}  // namespace

KdaChunkWorkspace::KdaChunkWorkspace(std::size_t tokens, std::size_t heads, std::size_t d)
    : w(chunks_of(tokens) * heads * kC * d), q_decayed(w.size()), k_to_end(w.size()),
      p(chunks_of(tokens) * heads * kC * kC), u(w.size()), gamma_last(chunks_of(tokens) * heads * d),
      tokens_(tokens), heads_(heads), d_(d) {}

void launch_kda_chunk(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, const float* a,
                      const float* beta, float* state, float* o, KdaChunkWorkspace& ws, cudaStream_t stream) {
  const std::size_t tokens = ws.tokens(), heads = ws.heads(), d = ws.d();
  K3SIM_ASSERT(d % kSlab == 0 && d >= kSlab && d <= kMaxD, "launch_kda_chunk: head dim a multiple of 32 up to 128");
  if (tokens == 0) return;
  const Workspace w{as_bf16(ws.w.get()), as_bf16(ws.q_decayed.get()), as_bf16(ws.k_to_end.get()),
                    as_bf16(ws.p.get()), ws.u.get(), ws.gamma_last.get()};
  const auto dd = static_cast<unsigned>(d);
  const std::size_t prepare_smem = PrepareLayout{dd}.total();
  K3_CUDA(cudaFuncSetAttribute(kda_chunk_prepare, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(prepare_smem)));
  kda_chunk_prepare<<<dim3(static_cast<unsigned>(chunks_of(tokens)), static_cast<unsigned>(heads)), kPrepareWarps * 32,
                      prepare_smem, stream>>>(q, k, v, a, beta, w, static_cast<unsigned>(tokens),
                                              static_cast<unsigned>(heads), dd);
  K3_CUDA(cudaGetLastError());
  const std::size_t state_smem = (d * kSlab + 2 * kC * kSlab) * sizeof(float) + (2 * d * kSlab + kC * kSlab) * 2;
  K3_CUDA(cudaFuncSetAttribute(kda_chunk_state, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(state_smem)));
  kda_chunk_state<<<dim3(dd / kSlab, static_cast<unsigned>(heads)), kStateWarps * 32, state_smem, stream>>>(
      w, state, o, static_cast<unsigned>(tokens), static_cast<unsigned>(heads), dd);
  K3_CUDA(cudaGetLastError());
}

std::vector<float> gpu::kda_forward(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                                    std::span<const float> a, std::span<const float> beta, std::size_t tokens,
                                    std::size_t heads, std::size_t d, std::vector<float>& state) {
  DeviceBuffer<Bf16> dq(to_bf16(q)), dk(to_bf16(k)), dv(to_bf16(v));
  DeviceBuffer<float> da(a), db(beta), ds{std::span<const float>(state)}, o(tokens * heads * d);
  KdaChunkWorkspace ws(tokens, heads, d);
  launch_kda_chunk(as_bf16(dq.get()), as_bf16(dk.get()), as_bf16(dv.get()), da.get(), db.get(), ds.get(), o.get(), ws,
                   nullptr);
  K3_CUDA(cudaDeviceSynchronize());
  state = ds.download();
  return o.download();
}

}  // namespace k3::kernels
