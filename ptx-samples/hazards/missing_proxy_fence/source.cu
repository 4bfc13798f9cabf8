// BUG: the tile written with ordinary (generic-proxy) stores is handed to a bulk store (async proxy) with only
// __syncthreads in between; the writers must execute fence.proxy.async.shared::cta before the barrier.
#include "../common.cuh"
constexpr int T = 128;
extern "C" __global__ void __launch_bounds__(T) missing_proxy_fence(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ __align__(128) int tile[T];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * T;
  tile[t] = in[base + T - 1 - t] + t;
  // missing: fence_proxy_async();
  __syncthreads();
  if (t == 0) {
    bulk_s2g(out + base, tile, T * sizeof(int));
    bulk_commit();
    bulk_wait0();
  }
}
