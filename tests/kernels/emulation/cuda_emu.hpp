// A CPU emulation of the CUDA subset the tensor-core kernels use (scripts/emulate-kernels.sh), so that a
// session without a GPU can run their device code: one std::thread per CUDA thread, std::barrier for
// __syncthreads and __syncwarp, shuffles through a per-warp buffer, WMMA fragments as whole 16x16 matrices
// held by every lane (loads and stores between warp barriers, stores by lane 0, as the *_sync calls are
// warp-collective), shared memory filled with garbage. It checks indexing, synchronisation and the
// algorithm; the hardware's MMA summation order, __expf and speed it does not model.
#pragma once
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "kernels/common/bf16.hpp"

#define __global__
#define __device__
#define __host__
#define __restrict__

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

struct __nv_bfloat16 {
  std::uint16_t bits;
};
inline __nv_bfloat16 __float2bfloat16(float f) { return {k3::kernels::to_bf16(f)}; }
inline float __bfloat162float(__nv_bfloat16 b) { return k3::kernels::from_bf16(b.bits); }
inline __nv_bfloat16 __hneg(__nv_bfloat16 b) { return {static_cast<std::uint16_t>(b.bits ^ 0x8000u)}; }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }

namespace emu {
struct BlockCtx {
  std::barrier<>* block;
  std::vector<std::unique_ptr<std::barrier<>>>* warps;
  std::vector<float>* shfl;  // [warps][32]
  unsigned char* smem;
};
inline thread_local BlockCtx ctx;
inline thread_local dim3 tidx, bidx, bdim;
inline unsigned char* smem() { return ctx.smem; }
inline void warp_sync() { (*ctx.warps)[tidx.x / 32]->arrive_and_wait(); }
}  // namespace emu

#define threadIdx (emu::tidx)
#define blockIdx (emu::bidx)
#define blockDim (emu::bdim)
inline void __syncthreads() { emu::ctx.block->arrive_and_wait(); }
inline void __syncwarp() { emu::warp_sync(); }
inline float __shfl_xor_sync(unsigned, float v, int off) {
  float* buf = emu::ctx.shfl->data() + (emu::tidx.x / 32) * 32;
  const unsigned lane = emu::tidx.x % 32;
  buf[lane] = v;
  emu::warp_sync();
  const float other = buf[lane ^ static_cast<unsigned>(off)];
  emu::warp_sync();
  return other;
}

namespace nvcuda::wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
  static constexpr int num_elements = 256;
  T x[256];
};

template <class T>
float as_float(T v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else return v;
}

template <class Use, class T, class Layout>
void load_matrix_sync(fragment<Use, 16, 16, 16, T, Layout>& f, const T* p, unsigned ldm) {
  emu::warp_sync();
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) f.x[r * 16 + c] = std::is_same_v<Layout, col_major> ? p[c * ldm + r] : p[r * ldm + c];
  }
  emu::warp_sync();
}
inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, float>& f, const float* p, unsigned ldm, layout_t l) {
  emu::warp_sync();
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) f.x[r * 16 + c] = l == mem_col_major ? p[c * ldm + r] : p[r * ldm + c];
  }
  emu::warp_sync();
}
inline void store_matrix_sync(float* p, const fragment<accumulator, 16, 16, 16, float>& f, unsigned ldm, layout_t l) {
  emu::warp_sync();
  if (emu::tidx.x % 32 == 0) {
    for (int r = 0; r < 16; ++r) {
      for (int c = 0; c < 16; ++c) (l == mem_col_major ? p[c * ldm + r] : p[r * ldm + c]) = f.x[r * 16 + c];
    }
  }
  emu::warp_sync();
}
inline void fill_fragment(fragment<accumulator, 16, 16, 16, float>& f, float v) {
  for (auto& e : f.x) e = v;
}
template <class LA, class LB>
void mma_sync(fragment<accumulator, 16, 16, 16, float>& d, const fragment<matrix_a, 16, 16, 16, __nv_bfloat16, LA>& a,
              const fragment<matrix_b, 16, 16, 16, __nv_bfloat16, LB>& b,
              const fragment<accumulator, 16, 16, 16, float>& c) {
  float out[256];
  for (int r = 0; r < 16; ++r) {
    for (int col = 0; col < 16; ++col) {
      float acc = c.x[r * 16 + col];
      for (int k = 0; k < 16; ++k) acc += __bfloat162float(a.x[r * 16 + k]) * __bfloat162float(b.x[k * 16 + col]);
      out[r * 16 + col] = acc;
    }
  }
  std::memcpy(d.x, out, sizeof out);
}
}  // namespace nvcuda::wmma

namespace emu {
template <class Kernel, class... Args>
void launch(dim3 grid, dim3 block, std::size_t smem_bytes, Kernel kernel, Args... args) {
  const unsigned threads = block.x;
  for (unsigned by = 0; by < grid.y; ++by) {
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      std::vector<unsigned char> mem(smem_bytes + 256, 0xCD);  // garbage-filled, as on the device
      auto* aligned = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(mem.data()) + 255) & ~std::uintptr_t{255});
      std::barrier<> block_barrier(threads);
      std::vector<std::unique_ptr<std::barrier<>>> warps;
      for (unsigned w = 0; w < threads / 32; ++w) warps.push_back(std::make_unique<std::barrier<>>(32));
      std::vector<float> shfl(threads);
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          ctx = BlockCtx{&block_barrier, &warps, &shfl, aligned};
          tidx = dim3(t);
          bidx = dim3(bx, by);
          bdim = block;
          kernel(args...);
        });
      }
      for (auto& th : pool) th.join();
    }
  }
}
}  // namespace emu
