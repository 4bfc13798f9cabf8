// A single mbarrier.try_wait whose result is ignored. Warp 1 lane 0 issues a 1 KiB bulk copy into the shared
// tile with arrive.expect_tx, then (as a slow second producer) arrives on the same mbarrier only after
// ~20,000 cycles, so the phase completes late. Warp 0 executes ONE try_wait.parity 0 and reads the tile
// whatever it returned: on the H100 try_wait gives up after ~7,800 cycles and returns false (measured, see
// src/latency.rs), so the reads are not ordered after the copy's completion. ptxrun reports
// `read-before-complete` at the tile read (related: the bulk copy) under `run` (the H100's time limit) and
// under every `check` schedule with the adversarial model (try_wait returns false at once). The H100 output
// happens to be right here (the copy itself lands early): a latent bug. Correct twin: checker/try_wait_loop.
#include <cstdint>

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_addr(bar)), "r"(count) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_expect_tx_arrive(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ unsigned try_wait_once(unsigned long long* bar, unsigned parity) {
  unsigned ok;
  asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
               : "=r"(ok) : "r"(smem_addr(bar)), "r"(parity) : "memory");
  return ok;
}
__device__ __forceinline__ void mbar_wait_parity(unsigned long long* bar, unsigned parity) {
  while (!try_wait_once(bar, parity)) {}
}
__device__ __forceinline__ void bulk_g2s(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar)) : "memory");
}

#ifndef WAIT_LOOP
#define WAIT_LOOP 0
#endif

extern "C" __global__ void __launch_bounds__(64) try_wait_kernel(const int* __restrict__ in, int* out) {
  __shared__ alignas(128) int tile[256];
  __shared__ unsigned long long bar;
  const int t = threadIdx.x;
  if (t == 0) mbar_init(&bar, 2);
  __syncthreads();
  if (t == 32) {
    mbar_expect_tx_arrive(&bar, 1024);
    bulk_g2s(tile, in + blockIdx.x * 256, 1024, &bar);
    const long long start = clock64();
    while (clock64() - start < 20000) {}
    mbar_arrive(&bar);  // the phase completes only now
  }
  if (t >= 32) {
    mbar_wait_parity(&bar, 0);  // warp 1 waits properly before the CTA can exit
    return;
  }
#if WAIT_LOOP
  mbar_wait_parity(&bar, 0);
#else
  (void)try_wait_once(&bar, 0);  // BUG: the result is ignored
#endif
  for (int i = t; i < 256; i += 32) out[blockIdx.x * 256 + i] = tile[i] + 1;
}
