// TMA multicast in a cluster of 4 CTAs (__cluster_dims__(4,1,1); grid 8 = 2 clusters):
//   rank 0 loads box A of mA (f32 [40,24], box [32,8], no swizzle) with ctaMask 0b1111: it lands in all four
//          CTAs' `ta` and completes 1024 tx-bytes on each CTA's mbarrier (same shared offsets);
//   rank 3 loads box B of mB (f16 [72,20] rows of 144 B, box [64,8], 128B swizzle) with ctaMask 0b0110: it
//          lands in ranks 1 and 2 only (the issuing CTA is not in the mask).
// Every CTA inits its own mbarrier and arrive.expect_tx's the bytes it will receive (2048 for ranks 1 and 2,
// 1024 for 0 and 3) before the cluster barrier that precedes any copy, so no complete_tx can come first.
// Each CTA waits (try_wait.parity.acquire.cluster: the complete_tx is by another CTA's copy), dumps its
// tiles, and the cluster syncs again before exit. Box coordinates depend on %clusterid.x (partly out of bounds;
// dim-0 coordinates 16-byte aligned, which the H100 requires).
// dump of CTA c (c = blockIdx.x): 1024 bytes of A, then 1024 bytes of B (zeros where the CTA is not in B's mask).
#include <cuda.h>   // CUtensorMap
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint32_t sreg_cluster_ctarank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ uint32_t sreg_clusterid_x() { uint32_t r; asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r)); return r; }
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

extern "C" __global__ void __cluster_dims__(4, 1, 1)
tile_multicast(const __grid_constant__ CUtensorMap mA, const __grid_constant__ CUtensorMap mB, uint32_t* __restrict__ dump) {
  __shared__ __align__(1024) float ta[32 * 8];        // 1024 B
  __shared__ __align__(1024) uint16_t tb[64 * 8];     // 1024 B, one 128B-swizzle atom
  __shared__ __align__(8) uint64_t bar;
  const uint32_t rank = sreg_cluster_ctarank();
  const int cid = (int)sreg_clusterid_x();
  const bool gets_b = rank == 1 || rank == 2;

  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(smem_u32(&bar)), "r"(gets_b ? 2048u : 1024u) : "memory");
  }
  cluster_sync();   // every CTA's mbarrier is initialised and expects its bytes before any copy is issued

  if (threadIdx.x == 0 && rank == 0) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3}], [%4], %5;"
                 :: "r"(smem_u32(ta)), "l"(&mA), "r"(cid * 20 - 8), "r"(cid * 18 - 3), "r"(smem_u32(&bar)), "h"((uint16_t)0xF)
                 : "memory");
  }
  if (threadIdx.x == 0 && rank == 3) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3}], [%4], %5;"
                 :: "r"(smem_u32(tb)), "l"(&mB), "r"(cid * 32 - 8), "r"(cid * 17 - 2), "r"(smem_u32(&bar)), "h"((uint16_t)0x6)
                 : "memory");
  }

  uint32_t done = 0;
  while (!done) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(smem_u32(&bar)), "r"(0u) : "memory");
  }
  uint32_t* out = dump + blockIdx.x * 512;
  const uint32_t* a = reinterpret_cast<const uint32_t*>(ta);
  const uint32_t* bb = reinterpret_cast<const uint32_t*>(tb);
  for (int i = threadIdx.x; i < 256; i += blockDim.x) {
    out[i] = a[i];
    out[256 + i] = gets_b ? bb[i] : 0u;
  }
  cluster_sync();   // no CTA exits while a multicast it issued may still be writing into another CTA
}
