// BUG: after the tile loop the kernel "drains" the mbarrier with one more wait on the current phase parity, but
// every phase that anyone arrives on has already been consumed, so it waits for a phase that never completes
// (drop the extra wait).
#include "../common.cuh"
constexpr int T = 128;
constexpr int TILE = 128;   // ints per tile
extern "C" __global__ void __launch_bounds__(T) wrong_parity(const int* __restrict__ in, int* __restrict__ out, int ntiles) {
  __shared__ __align__(128) int buf[TILE];
  __shared__ __align__(8) unsigned long long bar;
  const int t = threadIdx.x;
  if (t == 0) {
    mbar_init(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  unsigned phase = 0;
  for (int i = 0; i < ntiles; ++i) {
    const size_t off = ((size_t)blockIdx.x * ntiles + i) * TILE;
    if (t == 0) {
      mbar_expect_tx_arrive(&bar, TILE * sizeof(int));
      bulk_g2s(buf, in + off, TILE * sizeof(int), &bar);
    }
    mbar_wait_parity(&bar, phase);
    phase ^= 1;
    out[off + t] = buf[t] * 7 + i;
    __syncthreads();   // everyone is done with buf before it is refilled
  }
  mbar_wait_parity(&bar, phase);   // BUG: nobody arrives on this phase
}
