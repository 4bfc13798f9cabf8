#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each block of a 2-block cluster builds a partial histogram; rank 0 reads its peer's via DSMEM.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_hist(const int* __restrict__ in, int* __restrict__ out, int n) {
  __shared__ int bins[64];
  cg::cluster_group cluster = cg::this_cluster();
  cg::thread_block block = cg::this_thread_block();
  unsigned rank = cluster.block_rank();
  for (int i = threadIdx.x; i < 64; i += blockDim.x) bins[i] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    int b = in[i] & 63;
    // alternate between the local and the peer block's shared memory
    int* target = (i & 1) ? cluster.map_shared_rank(bins, rank ^ 1) : bins;
    atomicAdd(target, 0);
    atomicAdd(&target[b], 1);
  }
  cluster.sync();
  if (rank == 0) {
    int* peer = cluster.map_shared_rank(bins, 1);
    for (int i = threadIdx.x; i < 64; i += blockDim.x)
      out[(blockIdx.x / cluster.num_blocks()) * 64 + i] = bins[i] + peer[i];
  }
  cluster.sync();   // keep peer shared memory alive until it has been read
  (void)block;
}

// Ring exchange over the cluster: each block writes its id into its right neighbour's shared slot.
extern "C" __global__ void cluster_ring(unsigned* out) {
  __shared__ unsigned slot[2];
  auto cluster = cg::this_cluster();
  unsigned r = cluster.block_rank(), nb = cluster.num_blocks();
  if (threadIdx.x == 0) {
    unsigned* right = cluster.map_shared_rank(&slot[0], (r + 1) % nb);
    *right = r * 100 + cluster.dim_blocks().x;
  }
  cluster.sync();
  if (threadIdx.x == 0) {
    unsigned ctarank, nctarank;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(ctarank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nctarank));
    out[blockIdx.x] = slot[0] + ctarank * 10000 + nctarank * 1000000 + cluster.block_index().x;
    slot[1] = cluster.query_shared_rank(&slot[1]);
  }
  cluster.sync();
}
