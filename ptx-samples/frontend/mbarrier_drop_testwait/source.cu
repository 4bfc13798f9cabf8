#include <cuda/ptx>
#include <cstdint>
namespace ptx = cuda::ptx;
__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

// Producer/consumer phases on one mbarrier; threads beyond `active` drop out of the barrier.
extern "C" __global__ void drop_and_poll(const float* __restrict__ in, float* __restrict__ out, int active, int rounds) {
  __shared__ alignas(8) uint64_t bar;
  __shared__ float vals[256];
  const int t = threadIdx.x;
  if (t == 0) ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();

  if (t >= active) {
    // leave permanently: the expected count of every later phase shrinks by one
    asm volatile("mbarrier.arrive_drop.shared::cta.b64 _, [%0];" :: "r"(smem_u32(&bar)) : "memory");
    return;
  }
  float acc = 0.0f;
  for (int r = 0; r < rounds; ++r) {
    vals[t] = in[r * blockDim.x + t];
    uint64_t state = ptx::mbarrier_arrive(&bar);
    // spin with test_wait (non-blocking) and a nanosleep back-off
    unsigned ns = 8;
    while (!ptx::mbarrier_test_wait(&bar, state)) {
      __nanosleep(ns);
      if (ns < 256) ns *= 2;
    }
    acc += vals[(t + 1) % active];
    // second half of the round: the parity flavour of test_wait, via inline asm
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_u32(&bar)) : "memory");
    uint32_t ok = 0;
    while (!ok)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(ok) : "r"(smem_u32(&bar)), "r"((uint32_t)(r & 1) ^ 1u) : "memory");
  }
  out[blockIdx.x * blockDim.x + t] = acc;
  if (t == 0) {
    uint32_t pending;
    uint64_t st;
    asm volatile("mbarrier.arrive_drop.noComplete.shared::cta.b64 %0, [%1], %2;" : "=l"(st) : "r"(smem_u32(&bar)), "r"(0) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(st));
    out[gridDim.x * blockDim.x + blockIdx.x] = (float)pending;
  }
}

// arrive with a count (one thread arrives for its whole warp), blocking try_wait with a time hint
extern "C" __global__ void warp_leader_arrive(int* flags) {
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(&bar)), "r"(blockDim.x) : "memory");
  __syncthreads();
  uint64_t st = 0;
  if ((threadIdx.x & 31) == 0)
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 %0, [%1], %2;" : "=l"(st) : "r"(smem_u32(&bar)), "r"(32) : "memory");
  st = __shfl_sync(0xffffffffu, st, 0);
  uint32_t ok = 0;
  while (!ok)
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.acquire.cta.shared::cta.b64 p, [%1], %2, %3;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(smem_u32(&bar)), "l"(st), "r"(100000) : "memory");
  flags[blockIdx.x * blockDim.x + threadIdx.x] = 1;
  __syncthreads();
  if (threadIdx.x == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(smem_u32(&bar)) : "memory");
}
