// BUG: arrive.expect_tx is given the byte size of the whole array (n * 4 = 1 MiB) instead of the tile's, which
// exceeds the tx-count range (at most 2^20 - 1); the expect-tx must count only the bytes copied in this phase.
#include "../common.cuh"
constexpr int T = 128;
constexpr int TILE = 256;   // ints, 1024 bytes
extern "C" __global__ void __launch_bounds__(T) tx_count_overflow(const int* __restrict__ in, int* __restrict__ out, int n) {
  __shared__ __align__(128) int buf[TILE];
  __shared__ __align__(8) unsigned long long bar;
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * TILE;
  if (t == 0) {
    mbar_init(&bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    mbar_expect_tx_arrive(&bar, (unsigned)n * sizeof(int));   // BUG: should be TILE * sizeof(int)
    bulk_g2s(buf, in + base, TILE * sizeof(int), &bar);
  }
  mbar_wait_parity(&bar, 0);
  for (int j = t; j < TILE; j += T) out[base + j] = buf[j] * 3;
}
