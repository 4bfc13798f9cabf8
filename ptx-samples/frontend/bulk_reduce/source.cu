#include <cstdint>
#include <cuda_fp16.h>
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

constexpr int N = 512;

// Every block accumulates its shared partials into the same global arrays with bulk async reductions.
extern "C" __global__ void bulk_accumulate(const float* __restrict__ x, float* __restrict__ facc, unsigned* __restrict__ uacc,
                                           int* __restrict__ imin, __half* __restrict__ hacc) {
  __shared__ alignas(128) float fpart[N];
  __shared__ alignas(128) unsigned upart[N];
  __shared__ alignas(128) int ipart[N];
  __shared__ alignas(128) __half hpart[N];
  for (int i = threadIdx.x; i < N; i += blockDim.x) {
    float v = x[blockIdx.x * N + i];
    fpart[i] = v * v;
    upart[i] = v > 0.0f;
    ipart[i] = __float2int_rd(v * 1000.0f);
    hpart[i] = __float2half(v);
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" :: "l"(facc), "r"(smem_u32(fpart)), "r"(N * 4) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], %2;" :: "l"(uacc), "r"(smem_u32(upart)), "r"(N * 4) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%0], [%1], %2;" :: "l"(imin), "r"(smem_u32(ipart)), "r"(N * 4) : "memory");
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%0], [%1], %2;" :: "l"(hacc), "r"(smem_u32(hpart)), "r"(N * 2) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  __syncthreads();
}

// Cluster of 2: rank 1 adds its counters into rank 0's shared memory; rank 0 waits on its mbarrier.
extern "C" __global__ void __cluster_dims__(2, 1, 1) bulk_reduce_to_peer(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
  __shared__ alignas(128) unsigned cnt[256];
  __shared__ alignas(8) uint64_t bar;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  for (int i = threadIdx.x; i < 256; i += blockDim.x) cnt[i] = in[blockIdx.x * 256 + i];
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar)) : "memory");
    if (rank == 0) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" :: "r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (rank == 1 && threadIdx.x == 0) {
    uint32_t dst, rbar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(dst) : "r"(smem_u32(cnt)));
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(rbar) : "r"(smem_u32(&bar)));
    asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%0], [%1], 1024, [%2];"
                 :: "r"(dst), "r"(smem_u32(cnt)), "r"(rbar) : "memory");
  }
  if (rank == 0) {
    uint32_t done = 0;
    while (!done)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(smem_u32(&bar)) : "memory");
    for (int i = threadIdx.x; i < 256; i += blockDim.x) out[blockIdx.x / 2 * 256 + i] = cnt[i];
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
