// Looks racy, is correct. Clusters of 2 CTAs. Warp 0 of rank 1 writes a 128-int payload into rank 0's shared
// memory with ORDINARY distributed-shared-memory stores (through cluster.map_shared_rank), __syncwarp, and then
// lane 0 issues one st.async of a header word into rank 0, completing 4 bytes of tx on rank 0's mbarrier.
// The complete-tx of st.async has release semantics at cluster scope, so it releases everything the issuing
// thread did, and everything __syncwarp ordered before it, before the issue: rank 0's threads, after their
// acquire wait on the mbarrier, read the payload and the header without a race.
// out[64c + t] = payload[t] + payload[t + 64] + header for cluster c, thread t of rank 0.
#include "../common.cuh"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

constexpr int T = 64, N = 128;

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(T)
st_async_release(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ alignas(16) int payload[N];
  __shared__ alignas(8) int header[2];
  __shared__ alignas(8) uint64_t bar;
  cg::cluster_group cl = cg::this_cluster();
  const uint32_t r = cl.block_rank();
  const int c = blockIdx.x / 2, t = threadIdx.x;
  if (t == 0) { mbar_init(&bar, 1); fence_mbarrier_init(); }
  cl.sync();
  if (r == 0 && t == 0) mbar_arrive_expect_tx(&bar, 4);       // the 4 header bytes
  if (r == 1 && t < 32) {
    int* remote = cl.map_shared_rank(payload, 0);
    for (int j = t; j < N; j += 32) remote[j] = in[c * N + j] * 3 + 1;   // ordinary remote stores
    __syncwarp();
    if (t == 0)
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
                   :: "r"(mapa(header, 0)), "r"(in[2 * N + c]), "r"(mapa(&bar, 0)) : "memory");
  }
  if (r == 0) {
    mbar_wait_cluster(&bar, 0);
    out[c * T + t] = payload[t] + payload[t + 64] + header[0];
  }
  cl.sync();   // rank 0 stays alive until rank 1 is done writing into it (and vice versa)
}
