// BUG: the init loop starts at stage 1, so the mbarrier of stage 0 is never initialised (mbarrier.init) before
// thread 0 arrives on it with expect-tx and a bulk copy completes on it; the loop must start at 0.
#include "../common.cuh"
constexpr int T = 128;
constexpr int STAGES = 2;
constexpr int TILE = 128;   // ints per stage
extern "C" __global__ void __launch_bounds__(T) uninitialized_mbarrier(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ __align__(128) int buf[STAGES][TILE];
  __shared__ __align__(8) unsigned long long bar[STAGES];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * STAGES * TILE;
  if (t == 0) {
    for (int s = 1; s < STAGES; ++s) mbar_init(&bar[s], 1);   // BUG: bar[0] is skipped
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_expect_tx_arrive(&bar[s], TILE * sizeof(int));
      bulk_g2s(buf[s], in + base + s * TILE, TILE * sizeof(int), &bar[s]);
    }
  }
  for (int s = 0; s < STAGES; ++s) {
    mbar_wait_parity(&bar[s], 0);
    out[base + s * TILE + t] = buf[s][t] + buf[s][TILE - 1 - t];
  }
}
