#include <cstdint>
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

constexpr int TILE = 2048;   // floats (8 KiB) per tile

// y[i] = a * x[i] + b, tiles bulk-loaded into 2 stages and bulk-stored back
extern "C" __global__ void bulk_affine(const float* __restrict__ x, float* __restrict__ y, int ntiles, float a, float b) {
  __shared__ alignas(128) float in[2][TILE];
  __shared__ alignas(128) float res[TILE];
  __shared__ alignas(8) uint64_t full[2];
  const int t = threadIdx.x;
  if (t == 0) {
    for (int s = 0; s < 2; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&full[s])) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  auto issue = [&](int s, int tl) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(&full[s])), "r"(TILE * 4) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(smem_u32(in[s])), "l"(x + (size_t)tl * TILE), "r"(TILE * 4), "r"(smem_u32(&full[s])) : "memory");
  };
  int first = blockIdx.x;
  if (t == 0 && first < ntiles) issue(0, first);
  uint32_t phase[2] = {0, 0};
  int s = 0;
  for (int tl = first; tl < ntiles; tl += gridDim.x, s ^= 1) {
    int nx = tl + gridDim.x;
    if (t == 0 && nx < ntiles) {
      if (nx + gridDim.x < ntiles)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(x + (size_t)(nx + gridDim.x) * TILE), "r"(TILE * 4) : "memory");
      issue(s ^ 1, nx);
    }
    uint32_t done = 0;
    while (!done)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(smem_u32(&full[s])), "r"(phase[s]) : "memory");
    phase[s] ^= 1;
    if (t == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");   // res is free again
    __syncthreads();
    for (int i = t; i < TILE; i += blockDim.x) res[i] = fmaf(a, in[s][i], b);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(y + (size_t)tl * TILE), "r"(smem_u32(res)), "r"(TILE * 4) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
  if (t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// expect_tx as a separate step, then a plain arrive
extern "C" __global__ void bulk_expect_then_arrive(const int4* __restrict__ src, int4* __restrict__ dst) {
  __shared__ alignas(16) int4 s[64];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(&bar)), "r"(1) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(&bar)), "r"(1024) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
                 :: "r"(smem_u32(s)), "l"(src + blockIdx.x * 64), "r"(smem_u32(&bar)) : "memory");
    uint64_t state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(smem_u32(&bar)) : "memory");
    uint32_t done = 0;
    while (!done)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(smem_u32(&bar)), "l"(state) : "memory");
  }
  __syncthreads();
  if (threadIdx.x < 64) dst[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}
