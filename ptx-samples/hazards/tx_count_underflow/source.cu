// BUG: the tile is loaded with two 1024-byte bulk copies on one mbarrier, but arrive.expect_tx announces only
// 1024 bytes (one copy), so the second complete-tx delivers more bytes than the phase expects (expect 2048).
#include "../common.cuh"
constexpr int T = 128;
constexpr int TILE = 512;            // ints, 2048 bytes
constexpr int HALF = TILE / 2;       // ints per copy, 1024 bytes
extern "C" __global__ void __launch_bounds__(T) tx_count_underflow(const int* __restrict__ in, int* __restrict__ out) {
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
    mbar_expect_tx_arrive(&bar, HALF * sizeof(int));   // BUG: should be TILE * sizeof(int)
    bulk_g2s(buf, in + base, HALF * sizeof(int), &bar);
    bulk_g2s(buf + HALF, in + base + HALF, HALF * sizeof(int), &bar);
  }
  mbar_wait_parity(&bar, 0);
  for (int j = t; j < TILE; j += T) out[base + j] = buf[j] - 7;
}
