#include <cstdint>
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint32_t cluster_ctarank() { uint32_t r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

constexpr int N = 1024;   // floats broadcast to every CTA of the cluster (4 KiB)
constexpr int CL = 4;

// Each CTA loads a quarter of the vector and multicasts it into all 4 CTAs' shared memory.
extern "C" __global__ void __cluster_dims__(CL, 1, 1) multicast_broadcast(const float* __restrict__ src, float* __restrict__ out) {
  __shared__ alignas(128) float buf[N];
  __shared__ alignas(8) uint64_t full;
  const uint32_t rank = cluster_ctarank();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&full)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();

  uint32_t is_leader;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(is_leader));
  if (threadIdx.x < 32 && is_leader) {
    // every CTA expects the full vector: 4 slices, one from each CTA
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(&full)), "r"((uint32_t)sizeof(buf)) : "memory");
    const uint16_t mask = (1u << CL) - 1;
    const uint32_t bytes = sizeof(buf) / CL;
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;"
                 :: "r"(smem_u32(&buf[rank * (N / CL)])), "l"(src + blockIdx.y * N + rank * (N / CL)), "r"(bytes),
                    "r"(smem_u32(&full)), "h"(mask) : "memory");
  }
  uint32_t ok = 0;
  while (!ok) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(smem_u32(&full)), "r"(0u) : "memory");
  }
  float s = 0.0f;
  for (int i = threadIdx.x; i < N; i += blockDim.x) s += buf[i] * (float)(rank + 1);
  out[(blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x] = s;

  // signal the next CTA's barrier remotely (mapa + remote arrive), then final cluster barrier
  if (threadIdx.x == 0) {
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_u32(&full)), "r"((rank + 1) % CL));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(remote) : "memory");
  }
  cluster_sync();
}
