// Correct twin of hazards/dsmem_after_exit: a final cluster.sync() keeps CTA 0 (and its shared tile) alive
// until CTA 1 has read it through distributed shared memory. Must be clean under every schedule.
// Rank 0 CTA b: out[64b + t] = 3 in[64b + t]; rank 1 CTA b: out[64b + t] = 3 in[64(b-1) + 63 - t] + 3 in[64b + t].
#define FINAL_SYNC 1
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(64) dsmem_exit(const int* __restrict__ in, int* out) {
  __shared__ int tile[64];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  const int t = threadIdx.x, i = blockIdx.x * 64 + t;
  tile[t] = in[i] * 3;
  cluster.sync();  // both tiles are written
  if (rank == 1) {
    const long long start = clock64();
    while (clock64() - start < 20000) {}  // a slow consumer
    const int* peer = cluster.map_shared_rank(tile, 0);
    out[i] = peer[63 - t] + tile[t];  // reads CTA 0's shared memory
  } else {
    out[i] = tile[t];
  }
#if FINAL_SYNC
  cluster.sync();  // CTA 0 stays alive until CTA 1 has read its tile
#endif
}
