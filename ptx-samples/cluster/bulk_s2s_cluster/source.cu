// Bulk copies and reductions from a CTA's shared memory into its neighbours' (distributed shared memory),
// cluster of 4 (__cluster_dims__(4,1,1); grid 8 = 2 clusters). Thread 0 of rank r issues, with destination
// and mbarrier addresses from mapa.shared::cluster:
//   cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes                 tile (1 KB) -> inbox of r+1
//   cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32  contrib (512 B) -> acc_add of r+1 and of r-1
//   cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.max.s32  contrib2 (512 B) -> acc_max of r+2
// so every CTA receives 1024 + 2 * 512 + 512 = 2560 bytes on its own mbarrier (arrive.expect_tx before the
// cluster barrier that precedes all copies). Sources and accumulators are written with generic stores, then
// fence.proxy.async.shared::cta (the async proxy reads the sources and read-modify-writes the accumulators),
// then the cluster barrier. Each CTA waits (try_wait.parity.acquire.cluster), dumps inbox, acc_add, acc_max;
// a final cluster barrier keeps every source alive until the copies out of it have completed.
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint32_t mapa(const void* p, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_u32(p)), "r"(rank));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

extern "C" __global__ void __cluster_dims__(4, 1, 1)
bulk_s2s_cluster(const uint32_t* __restrict__ vals, uint32_t* __restrict__ dump) {
  __shared__ __align__(128) uint32_t tile[256];
  __shared__ __align__(128) uint32_t contrib[128];
  __shared__ __align__(128) int32_t contrib2[128];
  __shared__ __align__(128) uint32_t inbox[256];
  __shared__ __align__(128) uint32_t acc_add[128];
  __shared__ __align__(128) int32_t acc_max[128];
  __shared__ __align__(8) uint64_t bar;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const uint32_t t = threadIdx.x, c = blockIdx.x;
  const uint32_t* v = vals + c * 768;   // per CTA: tile 256, contrib 128, contrib2 128, acc_add 128, acc_max 128

  for (uint32_t i = t; i < 256; i += blockDim.x) tile[i] = v[i];
  for (uint32_t i = t; i < 128; i += blockDim.x) {
    contrib[i] = v[256 + i];
    contrib2[i] = (int32_t)v[384 + i];
    acc_add[i] = v[512 + i];
    acc_max[i] = (int32_t)v[640 + i];
  }
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(&bar)), "r"(2560u) : "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // generic writes -> visible to the async proxy
  cluster_sync();

  if (t == 0) {
    const uint32_t next = (rank + 1) % 4, prev = (rank + 3) % 4, opp = (rank + 2) % 4;
    asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(mapa(inbox, next)), "r"(smem_u32(tile)), "r"(1024u), "r"(mapa(&bar, next)) : "memory");
    asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%0], [%1], %2, [%3];"
                 :: "r"(mapa(acc_add, next)), "r"(smem_u32(contrib)), "r"(512u), "r"(mapa(&bar, next)) : "memory");
    asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%0], [%1], %2, [%3];"
                 :: "r"(mapa(acc_add, prev)), "r"(smem_u32(contrib)), "r"(512u), "r"(mapa(&bar, prev)) : "memory");
    asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.max.s32 [%0], [%1], %2, [%3];"
                 :: "r"(mapa(acc_max, opp)), "r"(smem_u32(contrib2)), "r"(512u), "r"(mapa(&bar, opp)) : "memory");
  }

  uint32_t ok = 0;
  while (!ok) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(smem_u32(&bar)), "r"(0u) : "memory");
  }
  uint32_t* out = dump + c * 512;
  for (uint32_t i = t; i < 256; i += blockDim.x) out[i] = inbox[i];
  for (uint32_t i = t; i < 128; i += blockDim.x) {
    out[256 + i] = acc_add[i];
    out[384 + i] = (uint32_t)acc_max[i];
  }
  cluster_sync();   // every copy out of this CTA's tile/contrib has completed (its destination waited for it)
}
