// BUG: arrive.expect_tx counts the tile in 2-byte elements (left over from a half-precision version of the
// kernel) while the tile holds 4-byte ints, so the single bulk copy delivers 2048 bytes against 1024 expected.
#include "../common.cuh"
constexpr int T = 128;
constexpr int TILE = 512;   // ints, 2048 bytes
extern "C" __global__ void __launch_bounds__(T) tx_count_underflow_single(const int* __restrict__ in, int* __restrict__ out) {
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
    mbar_expect_tx_arrive(&bar, TILE * sizeof(short));   // BUG: should be TILE * sizeof(int)
    bulk_g2s(buf, in + base, TILE * sizeof(int), &bar);
  }
  mbar_wait_parity(&bar, 0);
  for (int j = t; j < TILE; j += T) out[base + j] = buf[j] ^ 0x55;
}
