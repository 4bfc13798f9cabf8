// Buggy twin of tensor/tensormap_from_zero (its case 0), in a cluster of two CTAs: CTA 0 builds
// the map from 128 zero bytes, releases it with tensormap.cp_fenceproxy and acquires it with
// fence.proxy.tensormap::generic.acquire; after the cluster barrier CTA 1 copies through it.
// The acquire orders the tensor-map proxy of CTA 0's threads only: proxy ordering carries
// within a thread block (PTX ISA 9.0 8.9.x, proxy-preserved base causality order), so CTA 1's
// copy may use a stale map; CTA 1 must acquire the map itself after the barrier. ptxrun:
// missing-tensormap-proxy-fence at CTA 1's copy, related: the release's copy of the map.
// Written for ptxrun.
#include <cstdint>

__device__ __forceinline__ uint32_t s32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

#define REPLACE(field, args, ...) \
  asm volatile("tensormap.replace.tile." field ".shared::cta.b1024." args ";" :: __VA_ARGS__ : "memory")

extern "C" __global__ void __cluster_dims__(2, 1, 1)
acquire_other_cta(const float* src, uint64_t* slot, uint32_t* dump, int* status) {
  __shared__ __align__(1024) uint32_t box[128];
  __shared__ __align__(128) uint32_t tm[32];
  __shared__ __align__(8) uint64_t bar;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (rank == 0) {
    if (threadIdx.x < 32) tm[threadIdx.x] = 0;
    __syncwarp();
    if (threadIdx.x == 0) {
      const uint32_t a = s32(tm);
      REPLACE("global_address", "b64 [%0], %1", "r"(a), "l"(src));
      REPLACE("rank", "b32 [%0], 1", "r"(a));
      REPLACE("global_dim", "b32 [%0], 0, %1", "r"(a), "r"(64));
      REPLACE("global_dim", "b32 [%0], 1, %1", "r"(a), "r"(32));
      REPLACE("global_stride", "b64 [%0], 0, %1", "r"(a), "l"(256ull));
      REPLACE("box_dim", "b32 [%0], 0, %1", "r"(a), "r"(16));
      REPLACE("box_dim", "b32 [%0], 1, %1", "r"(a), "r"(8));
      REPLACE("elemtype", "b32 [%0], 7", "r"(a));
    }
    __syncwarp();
    if (threadIdx.x < 32) {
      asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                   :: "l"(slot), "r"(s32(tm)) : "memory");
    }
    if (threadIdx.x == 0) asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(slot) : "memory");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (rank == 1 && threadIdx.x == 32) {   // no acquire of its own
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 512;" :: "r"(s32(&bar)) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(s32(box)), "l"(slot), "r"(8), "r"(4), "r"(s32(&bar)) : "memory");
    uint32_t done = 0;
    for (int i = 0; i < (1 << 22) && !done; ++i) {
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(s32(&bar)) : "memory");
    }
    *status = done ? 1 : 2;
  }
  __syncthreads();
  if (rank == 1)
    for (int i = threadIdx.x; i < 128; i += blockDim.x) dump[i] = box[i];
}
