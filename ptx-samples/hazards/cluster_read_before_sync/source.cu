// BUG: in a cluster of 2, each CTA fills its shared array and then reads the peer CTA's array through
// mapa + ld.shared::cluster with no cluster barrier in between (cluster.sync() is needed before the read;
// the final cluster.sync() only keeps the peer's shared memory alive until the reads are done).
#include <cooperative_groups.h>
#include "../common.cuh"
namespace cg = cooperative_groups;
constexpr int T = 64;
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(T) cluster_read_before_sync(const int* __restrict__ x, int* __restrict__ out) {
  __shared__ int arr[T];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned peer = cluster.block_rank() ^ 1;
  const int t = threadIdx.x;
  const size_t i = (size_t)blockIdx.x * T + t;
  arr[t] = x[i] * 2;
  // missing: cluster.sync();
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(&arr[T - 1 - t])), "r"(peer));
  int v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
  out[i] = v + arr[t];
  cluster.sync();
}
