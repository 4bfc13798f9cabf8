// BUG: a shared-memory histogram built with atomicAdd (generic-proxy writes) is handed to a bulk store (async
// proxy) with only __syncthreads in between. Atomic writes are generic-proxy writes like any store: every thread
// must execute fence.proxy.async.shared::cta after its atomics and before the barrier (or thread 0 after it).
#include "../common.cuh"
constexpr int T = 256, BINS = 64;
extern "C" __global__ void __launch_bounds__(T) atomic_hist_no_proxy_fence(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ __align__(128) int hist[BINS];
  const int t = threadIdx.x;
  if (t < BINS) { hist[t] = 0; fence_proxy_async(); }   // the zeroing stores are fenced ...
  __syncthreads();
  atomicAdd(&hist[in[blockIdx.x * T + t] & (BINS - 1)], 1);
  // ... the atomics are not. missing: fence_proxy_async();
  __syncthreads();
  if (t == 0) {
    bulk_s2g(out + blockIdx.x * BINS, hist, BINS * sizeof(int));
    bulk_commit();
    bulk_wait0();
  }
}
