// Looks racy (no bidirectional fence.proxy.async before the bulk store), is correct. Epilogue hand-off through
// an mbarrier with the unidirectional proxy fences of PTX 8.6: warps 0-3 store results to a shared tile with
// ordinary stores, __syncwarp, and each warp's lane 0 executes
//   fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster
// followed by a RELAXED arrive on the mbarrier (count 4). Warp 4's lane 0 waits on it with a relaxed try_wait,
// executes fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster, and bulk-stores the tile
// (async proxy). The release/acquire proxy-fence pair orders the generic-proxy stores before the async-proxy
// read of the bulk store. out[128b + t] = in[128b + t] * 7 + b.
#include "../common.cuh"

constexpr int N = 128;   // ints in the tile, one per producer thread

extern "C" __global__ void __launch_bounds__(160) proxy_release_mbar(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ alignas(128) int tile[N];
  __shared__ alignas(8) uint64_t bar;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32, b = blockIdx.x;
  if (t == 0) { mbar_init(&bar, 4); fence_mbarrier_init(); }
  __syncthreads();
  if (warp < 4) {
    tile[t] = in[b * N + t] * 7 + b;
    __syncwarp();
    if (lane == 0)
      asm volatile("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;\n\t"
                   "mbarrier.arrive.relaxed.cluster.shared::cta.b64 _, [%0];" :: "r"(sa(&bar)) : "memory");
  } else if (lane == 0) {
    uint32_t done = 0;
    while (!done)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.relaxed.cluster.shared::cta.b64 p, [%1], 0;\n\t"
                   "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(sa(&bar)) : "memory");
    asm volatile("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;" ::: "memory");
    bulk_s2g(out + b * N, tile, N * sizeof(int));
    bulk_commit();
    bulk_wait0();
  }
}
