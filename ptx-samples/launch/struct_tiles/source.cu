// Tensor maps inside a by-value struct, as CUTLASS's kernel Params carry their TMA descriptors:
// `const __grid_constant__ Tiles t` is `.param .align 128 .b8 tiles_struct_param_0[384]`, two
// CUtensorMaps at offsets 0 and 128, then a pointer and two scalars. Each CTA loads one 32x8 f32 box
// of each map with cp.async.bulk.tensor (one mbarrier, expect-tx of both boxes), and writes
// scale * (a + b) for its box. The copies read the maps from the parameter space inside the struct.
// Written for ptxrun.
#include <cuda.h>   // CUtensorMap
#include <cstdint>

struct Tiles {        // offset
  CUtensorMap a;      //   0
  CUtensorMap b;      // 128
  float* out;         // 256
  int cols;           // 264
  float scale;        // 268
};                    // 384 bytes, aligned to 128 (CUDA 13 aligns CUtensorMap to 128)

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void tiles_struct(const __grid_constant__ Tiles t) {
  __shared__ __align__(128) float sa[8][32];
  __shared__ __align__(128) float sb[8][32];
  __shared__ __align__(8) uint64_t bar;
  const int row0 = blockIdx.x * 8;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(&bar)), "r"(2 * 8 * 32 * 4) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem_u32(sa)), "l"(&t.a), "r"(0), "r"(row0), "r"(smem_u32(&bar)) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem_u32(sb)), "l"(&t.b), "r"(0), "r"(row0), "r"(smem_u32(&bar)) : "memory");
  }
  uint32_t done = 0;
  while (!done) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(smem_u32(&bar)) : "memory");
  }
  const int r = threadIdx.x / 32, c = threadIdx.x % 32;
  t.out[(row0 + r) * t.cols + c] = t.scale * (sa[r][c] + sb[r][c]);
}
