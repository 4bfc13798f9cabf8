// BUG: thread 0 initialises the mbarrier, arms it and starts a bulk load, but nothing orders the mbarrier.init
// before the other threads' try_wait on it: the __syncthreads between the init and the first use by other
// threads is missing. The other warps do some work first, so on most schedules (and on most GPU runs) the init
// happens to come first and the bug hides. Fix: __syncthreads() after the init (and fence.mbarrier_init).
#include "../common.cuh"
constexpr int T = 256;
extern "C" __global__ void __launch_bounds__(T) mbarrier_init_unsynced(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ __align__(128) int tile[T];
  __shared__ __align__(8) unsigned long long bar;
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * T;
  if (t == 0) {
    mbar_init(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    mbar_expect_tx_arrive(&bar, T * sizeof(int));
    bulk_g2s(tile, in + base, T * sizeof(int), &bar);
  }
  int acc = 0;
  if (t >= 32) for (int j = 0; j < 64; ++j) acc += in[base + ((t * 7 + j * 13) & (T - 1))];   // setup work
  // missing: __syncthreads();
  mbar_wait_parity(&bar, 0);
  out[base + t] = tile[t] + acc;
}
