// A cluster of 2 CTAs: CTA rank 1 reads rank 0's shared tile through distributed shared memory
// (cluster.map_shared_rank) after a 20,000-cycle delay, but nothing keeps CTA 0 alive until then: it exits
// right after writing its outputs. A CTA's shared memory exists only while it runs; the H100 fails the
// launch (see provenance.toml). ptxrun stops with `dsmem-access-after-exit` at the peer read. Correct twin:
// checker/dsmem_final_sync (a final cluster.sync()).
#ifndef FINAL_SYNC
#define FINAL_SYNC 0
#endif
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
