// A flag between the two CTAs of a cluster: CTA rank 1 writes a payload into rank 0's shared
// memory (distributed shared memory), then publishes a flag there with st.release.cluster;
// rank 0 spins on it with ld.acquire.cluster and reads the payload. Both scopes hold both
// threads, so the pair orders the payload (PTX ISA 9.0 8.5, 8.7). Correct twin of
// hazards/cluster_flag_cta_scope, which uses .cta.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
constexpr int T = 128;

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(T)
    cluster_flag_cluster_scope(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
  __shared__ unsigned payload[T];
  __shared__ unsigned flag;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned t = threadIdx.x, c = blockIdx.x / 2;
  if (t == 0) flag = 0;
  cluster.sync();                                   // every CTA has started and zeroed its flag
  if (cluster.block_rank() == 1) {
    unsigned* peer = cluster.map_shared_rank(payload, 0);
    unsigned* peer_flag = cluster.map_shared_rank(&flag, 0);
    peer[t] = in[c * T + t] * 3u + 1u;              // plain remote stores
    __syncthreads();
    if (t == 0) asm volatile("st.release.cluster.u32 [%0], %1;" ::"l"(peer_flag), "r"(1u) : "memory");
  } else {
    if (t == 0) {
      unsigned f = 0;
      while (f == 0) asm volatile("ld.acquire.cluster.u32 %0, [%1];" : "=r"(f) : "l"(&flag) : "memory");
    }
    __syncthreads();
    out[c * T + t] = payload[t];
  }
  cluster.sync();                                   // rank 0's shared memory outlives rank 1's use
}
