// Looks racy (the writers never execute fence.proxy.async), is correct. All 256 threads write a shared tile
// with ordinary stores and __syncthreads; then thread 0 ALONE executes fence.proxy.async.shared::cta and issues
// the bulk store of the tile. The barrier orders every writer's stores before thread 0's fence, and the proxy
// fence on that path orders them before the async-proxy read of the bulk store.
// out[256b + t] = in[256b + t] * 2 + 1.
#include "../common.cuh"

constexpr int T = 256;

extern "C" __global__ void __launch_bounds__(T) fence_by_issuer(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ alignas(128) int tile[T];
  const int t = threadIdx.x, b = blockIdx.x;
  tile[t] = in[b * T + t] * 2 + 1;
  __syncthreads();
  if (t == 0) {
    fence_proxy_async();              // by the issuing thread, after the barrier
    bulk_s2g(out + b * T, tile, T * sizeof(int));
    bulk_commit();
    bulk_wait_read0();                // the tile may be released (and the CTA may exit) once it was read
  }
}
