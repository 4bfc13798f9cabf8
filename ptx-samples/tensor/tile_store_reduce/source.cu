// TMA tile stores and reductions, shared -> global (cp.async.bulk.tensor / cp.reduce.async.bulk.tensor,
// bulk_group completion). 8 CTAs (b = blockIdx.y * 4 + blockIdx.x); every CTA fills its shared tiles with
// generic stores, fence.proxy.async.shared::cta, __syncthreads, then thread 0 issues:
//   group 1: mout  f32 [40,20] (rows of 48)        box [16,16]  2d store at (bx*16, by*16): disjoint boxes covering
//                                                   [0,64) x [0,32); bx = 3 is wholly out of bounds (writes nothing),
//                                                   the others partly: only in-bound elements are written
//            mvol  u16 [24,6,5] (strides 64,384 B) box [16,4,4] 3d store at ((b%2)*16, ((b/2)%2)*4, by*4), disjoint
//   group 2: macc  i32 [24,12]  box [16,8]  .add at (bx*4, by*5): the 8 boxes overlap
//            mfacc f32 [24,12]  box [16,8]  .add at ((3-bx)*4, by*3), small multiples of 0.5 (exact in any order)
//            mmax  u32 [24,12]  box [16,8]  .max at (bx*8, by*6), the acc tile's bits read as u32
// Measured on an H100 (driver 580.159.04): a tile store or reduction with any negative coordinate, or with a
// dim-0 coordinate whose byte offset is not a multiple of 16, raises an illegal instruction (loads accept
// negative coordinates, not misaligned ones), and so does a .add reduction through a UINT16 map; hence only
// boxes that start in bounds and stick out past the end here. Also measured: a store clips dim 0 at 16-byte
// granularity (with dims[0] * 2 = 40 bytes, elements 20..23 of each row were written too), so every map
// here has dims[0] * elemsize a multiple of 16, where per-element clipping and the hardware agree.
//   commit, commit; wait_group.read 1 (group 1 has read its shared source); wait_group 0.
// Padding elements of out/vol and the rows/planes after the tensors keep their init: nothing spills.
#include <cuda.h>   // CUtensorMap
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void tile_store_reduce(const __grid_constant__ CUtensorMap mout, const __grid_constant__ CUtensorMap mvol,
                                             const __grid_constant__ CUtensorMap macc, const __grid_constant__ CUtensorMap mfacc,
                                             const __grid_constant__ CUtensorMap mmax) {
  __shared__ __align__(1024) float tout[16 * 16];       // 1024 B
  __shared__ __align__(1024) uint16_t tvol[16 * 4 * 4];  // 512 B
  __shared__ __align__(128) int tacc[16 * 8];            // 512 B
  __shared__ __align__(128) float tfacc[16 * 8];         // 512 B
  const int b = blockIdx.y * 4 + blockIdx.x;   // 0..7
  const int bx = b % 4, by = b / 4;
  const int t = threadIdx.x;

  for (int i = t; i < 256; i += blockDim.x) {
    tout[i] = (float)(b * 256 + i);
    tvol[i] = (uint16_t)(b * 1000 + i);
  }
  for (int i = t; i < 128; i += blockDim.x) {
    tacc[i] = (b + 1) * ((i * 5) % 11) - 20;
    tfacc[i] = 0.5f * (float)((i * 3 + b) % 17) - 4.0f;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // generic writes -> visible to the async proxy
  __syncthreads();

  if (t == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(&mout), "r"(bx * 16), "r"(by * 16), "r"(smem_u32(tout)) : "memory");
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];"
                 :: "l"(&mvol), "r"((b % 2) * 16), "r"(((b / 2) % 2) * 4), "r"(by * 4), "r"(smem_u32(tvol)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(&macc), "r"(bx * 4), "r"(by * 5), "r"(smem_u32(tacc)) : "memory");
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(&mfacc), "r"((3 - bx) * 4), "r"(by * 3), "r"(smem_u32(tfacc)) : "memory");
    asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(&mmax), "r"(bx * 8), "r"(by * 6), "r"(smem_u32(tacc)) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
