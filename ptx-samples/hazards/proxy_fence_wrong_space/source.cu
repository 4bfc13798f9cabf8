// BUG: a tile is bulk-loaded into shared memory, transformed in place with ordinary stores, and bulk-stored to
// global memory. The writers do execute a proxy fence before the barrier, but fence.proxy.async.global, which
// orders only global-memory accesses; the tile is in shared memory, so the bulk store (async proxy) may still
// read stale bytes. Fix: fence.proxy.async.shared::cta (or the unqualified fence.proxy.async).
#include "../common.cuh"
constexpr int T = 256;
extern "C" __global__ void __launch_bounds__(T) proxy_fence_wrong_space(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ __align__(128) int tile[T];
  __shared__ __align__(8) unsigned long long bar;
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * T;
  if (t == 0) mbar_init(&bar, 1);
  __syncthreads();
  if (t == 0) {
    mbar_expect_tx_arrive(&bar, T * sizeof(int));
    bulk_g2s(tile, in + base, T * sizeof(int), &bar);
  }
  mbar_wait_parity(&bar, 0);
  const int v = tile[t] + tile[(t + 1) % T];
  __syncthreads();                                            // every read of the tile before any overwrite
  tile[t] = v * 3;
  asm volatile("fence.proxy.async.global;" ::: "memory");     // BUG: orders global memory, not shared::cta
  __syncthreads();
  if (t == 0) {
    bulk_s2g(out + base, tile, T * sizeof(int));
    bulk_commit();
    bulk_wait0();
  }
}
