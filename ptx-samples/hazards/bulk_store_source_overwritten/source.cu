// BUG: thread 0 commits a bulk store of the shared tile but does not wait for it to finish reading the tile
// (cp.async.bulk.wait_group.read 0) before the __syncthreads, so the block overwrites the tile with the next
// result while the bulk store may still be reading it.
#include "../common.cuh"
constexpr int T = 128;
extern "C" __global__ void __launch_bounds__(T) bulk_store_source_overwritten(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ __align__(128) int tile[T];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * T;
  for (int pass = 0; pass < 2; ++pass) {
    tile[t] = in[base + t] * (pass + 2);
    fence_proxy_async();   // make the generic-proxy stores visible to the bulk store
    __syncthreads();
    if (t == 0) {
      bulk_s2g(out + (size_t)(2 * blockIdx.x + pass) * T, tile, T * sizeof(int));
      bulk_commit();
      // missing: bulk_wait_read0();
    }
    __syncthreads();
  }
  if (t == 0) bulk_wait0();
}
