// A 3x3 convolution (stride 1, padding 1) of an NHWC f32 image batch, fed by TMA im2col loads:
// out[n][p][q][k] = sum over r, s, c of in[n][p + r - 1][q + s - 1][c] * w[k][r][s][c].
//
// The input map (cuTensorMapEncodeIm2col, rank 4, dims {C=16, W=8, H=6, N=2}) has the bounding box of
// the filter's top-left tap: lower corner {-1, -1} (the padding), upper corner {-1, -1} (padding minus
// the filter's extent minus one), 16 channels per pixel and 32 pixels per column. CTA b computes output
// pixels 32b..32b+31 (in N, H, W order, so a column crosses rows and, for b = 1, images): for each tap
// (r, s) one load at the column's first output pixel, shifted by the padding ({0, q-1, p-1, n}), with
// im2col offsets {s, r}, gathers the 32 input pixels that tap reads (zeros where they fall in the
// padding). Two stages, each with its mbarrier: the load of tap t+1 is in flight while tap t is consumed;
// the tap-(t+2) load reuses a stage only after every thread finished with it (__syncthreads).
// Each of the 256 threads owns one (pixel, output channel) pair and accumulates over taps and channels.
#include <cuda.h>   // CUtensorMap
#include <cstdint>

constexpr int C = 16, W = 8, H = 6, K = 8, PIX = 32, TAPS = 9;
constexpr uint32_t TILE_BYTES = PIX * C * 4;

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(smem_u32(bar)), "r"(parity) : "memory");
  }
}

// Loads the column of tap t into `dst`, completing on `bar`.
__device__ __forceinline__ void load_tap(float* dst, const CUtensorMap* m, uint64_t* bar, int t, int q0, int p0, int n0) {
  uint16_t r = t / 3, s = t % 3;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(bar)), "r"(TILE_BYTES) : "memory");
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
               :: "r"(smem_u32(dst)), "l"(m), "r"(0), "r"(q0 - 1), "r"(p0 - 1), "r"(n0), "r"(smem_u32(bar)),
                  "h"(s), "h"(r) : "memory");
}

extern "C" __global__ void __launch_bounds__(256) im2col_conv(const __grid_constant__ CUtensorMap in, const float* __restrict__ w,
                                                               float* __restrict__ out) {
  __shared__ __align__(1024) float tile[2][PIX * C];
  __shared__ __align__(8) uint64_t bar[2];
  const int m0 = blockIdx.x * PIX;             // first output pixel of this CTA
  const int n0 = m0 / (H * W), p0 = m0 / W % H, q0 = m0 % W;
  const int pix = threadIdx.x % PIX, k = threadIdx.x / PIX;
  if (threadIdx.x == 0) {
    for (int i = 0; i < 2; ++i)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar[i])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    load_tap(tile[0], &in, &bar[0], 0, q0, p0, n0);
    load_tap(tile[1], &in, &bar[1], 1, q0, p0, n0);
  }
  float acc = 0.0f;
  for (int t = 0; t < TAPS; ++t) {
    const int st = t % 2;
    mbar_wait(&bar[st], (t / 2) % 2);
    const float* x = tile[st] + pix * C;
    const float* f = w + (k * TAPS + t) * C;
    for (int c = 0; c < C; ++c) acc = fmaf(x[c], f[c], acc);
    __syncthreads();                           // every thread is done with stage st
    if (threadIdx.x == 0 && t + 2 < TAPS) load_tap(tile[st], &in, &bar[st], t + 2, q0, p0, n0);
  }
  out[(m0 + pix) * K + k] = acc;
}
