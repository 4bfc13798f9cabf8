// BUG: only thread 0 waits on the mbarrier that tracks the bulk copy, and it does so AFTER the __syncthreads,
// so the other threads read the bulk-copied shared tile before the copy has completed (the wait must come
// before the barrier, or every thread must wait).
#include "../common.cuh"
constexpr int T = 128;
extern "C" __global__ void __launch_bounds__(T) bulk_read_before_wait(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ __align__(128) int buf[T];
  __shared__ __align__(8) unsigned long long bar;
  const int t = threadIdx.x;
  if (t == 0) {
    mbar_init(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    mbar_expect_tx_arrive(&bar, T * sizeof(int));
    bulk_g2s(buf, in + (size_t)blockIdx.x * T, T * sizeof(int), &bar);
  }
  __syncthreads();
  if (t == 0) mbar_wait_parity(&bar, 0);   // BUG: too late for everyone but thread 0
  out[(size_t)blockIdx.x * T + t] = buf[T - 1 - t] * 2 + 1;
}
