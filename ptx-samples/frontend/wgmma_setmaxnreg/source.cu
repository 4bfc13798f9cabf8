#include <cstdint>
#include <cuda_fp16.h>
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

// wgmma shared-memory matrix descriptor, no swizzle: start address, leading/stride byte offsets (>>4)
__device__ __forceinline__ uint64_t make_desc(const void* p, uint32_t lbo, uint32_t sbo) {
  uint64_t d = 0;
  d |= (uint64_t)((smem_u32(p) & 0x3FFFF) >> 4);
  d |= (uint64_t)((lbo & 0x3FFFF) >> 4) << 16;
  d |= (uint64_t)((sbo & 0x3FFFF) >> 4) << 32;
  return d;
}

// One warpgroup computes a 64x8 tile D = A(64x16) * B(16x8) with wgmma; a second warpgroup
// plays "producer" and only demonstrates register reallocation.
extern "C" __global__ void __launch_bounds__(256, 1) wgmma_tile(const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ D) {
  __shared__ alignas(128) half sA[64 * 16];
  __shared__ alignas(128) half sB[16 * 8];
  const int t = threadIdx.x;
  const int wg = t / 128;
  // core-matrix (8x8) interleaved layouts expected by the no-swizzle descriptors
  for (int i = t; i < 64 * 16; i += blockDim.x) {
    int r = i / 16, c = i % 16;
    sA[((r / 8) * 2 + c / 8) * 64 + (r % 8) * 8 + c % 8] = A[i];
  }
  for (int i = t; i < 16 * 8; i += blockDim.x) {
    int k = i / 8, n = i % 8;
    sB[(k / 8) * 64 + n * 8 + k % 8] = B[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  if (wg == 1) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");

  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  uint64_t da = make_desc(sA, 128, 256);
  uint64_t db = make_desc(sB, 128, 256);
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{\n\t"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, 0, 1, 1, 0, 0;\n\t"
      "}"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "l"(da), "l"(db)
      : "memory");
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

  // accumulator fragment layout for m64n8: warp w owns rows 16w..16w+15
  int warp = t / 32, lane = t % 32;
  int row = warp * 16 + lane / 4, col = (lane % 4) * 2;
  D[row * 8 + col] = d0;
  D[row * 8 + col + 1] = d1;
  D[(row + 8) * 8 + col] = d2;
  D[(row + 8) * 8 + col + 1] = d3;
}
