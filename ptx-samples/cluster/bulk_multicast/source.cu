// Non-tensor bulk copies global -> shared with cluster multicast (sm_90a), cluster of 4
// (__cluster_dims__(4,1,1); grid 8 = 2 clusters), one mbarrier per CTA used for two phases:
//   phase 0: rank 0 issues two multicasts into buf0: chunk 0 of its cluster's source with ctaMask 0b0101
//            (ranks 0 and 2) and chunk 1 with ctaMask 0b1010 (ranks 1 and 3): every CTA receives 1024 bytes;
//   phase 1: rank 3 issues chunk 2 into buf1 with ctaMask 0b1111, and rank 1 chunk 3 into buf2 with
//            ctaMask 0b0011 (ranks 0 and 1, 512 bytes): ranks 0 and 1 receive 1536 bytes, ranks 2 and 3 1024.
// Each CTA's thread 0 arrive.expect_tx's exactly its bytes for the coming phase before a cluster barrier
// that precedes the phase's copies (phase 1's expect_tx after the CTA saw phase 0 complete), so the
// tx-count never goes below zero. Waits are try_wait.parity.acquire.cluster (parity 0, then 1).
// dump of CTA c: buf0 (1024 B), buf1 (1024 B), buf2 (512 B; zeros for ranks 2 and 3, which get no chunk 3).
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint32_t cluster_ctarank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ uint32_t clusterid_x() { uint32_t r; asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r)); return r; }
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void multicast(void* dst, const void* src, uint32_t bytes, uint64_t* bar, uint16_t mask) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;"
               :: "r"(smem_u32(dst)), "l"(src), "r"(bytes), "r"(smem_u32(bar)), "h"(mask) : "memory");
}
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  uint32_t ok = 0;
  while (!ok) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(smem_u32(bar)), "r"(parity) : "memory");
  }
}

extern "C" __global__ void __cluster_dims__(4, 1, 1)
bulk_multicast(const uint4* __restrict__ src, uint4* __restrict__ dump) {
  __shared__ __align__(128) uint4 buf0[64];   // 1024 B
  __shared__ __align__(128) uint4 buf1[64];   // 1024 B
  __shared__ __align__(128) uint4 buf2[32];   // 512 B
  __shared__ __align__(8) uint64_t bar;
  const uint32_t rank = cluster_ctarank();
  const uint4* chunks = src + clusterid_x() * 4 * 64;   // 4 chunks of 1024 B per cluster
  const bool gets3 = rank == 0 || rank == 1;

  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(&bar)), "r"(1024u) : "memory");
  }
  cluster_sync();
  if (threadIdx.x == 0 && rank == 0) {
    multicast(buf0, chunks + 0 * 64, 1024, &bar, 0x5);
    multicast(buf0, chunks + 1 * 64, 1024, &bar, 0xA);
  }
  wait_parity(&bar, 0);

  if (threadIdx.x == 0)
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;"
                 :: "r"(smem_u32(&bar)), "r"(gets3 ? 1536u : 1024u) : "memory");
  cluster_sync();
  if (threadIdx.x == 0 && rank == 3) multicast(buf1, chunks + 2 * 64, 1024, &bar, 0xF);
  if (threadIdx.x == 0 && rank == 1) multicast(buf2, chunks + 3 * 64, 512, &bar, 0x3);
  wait_parity(&bar, 1);

  uint4* out = dump + blockIdx.x * 160;
  for (int i = threadIdx.x; i < 64; i += blockDim.x) {
    out[i] = buf0[i];
    out[64 + i] = buf1[i];
    if (i < 32) out[128 + i] = gets3 ? buf2[i] : make_uint4(0, 0, 0, 0);
  }
  cluster_sync();   // no CTA exits while a multicast it issued may still be writing into another CTA
}
