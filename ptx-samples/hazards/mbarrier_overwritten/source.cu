// BUG: the mbarrier lives right after the tile in one shared array, and the zero-fill loop runs one 16-byte
// slot too far, overwriting the live (initialised, in-use) mbarrier with ordinary stores (the fill must stop at TILE).
#include "../common.cuh"
constexpr int T = 64;
constexpr int TILE = 64;   // int4 slots
extern "C" __global__ void __launch_bounds__(T) mbarrier_overwritten(const int4* __restrict__ in, int4* __restrict__ out) {
  __shared__ __align__(128) int4 smem[TILE + 1];   // [0, TILE): tile; slot TILE: the mbarrier (8 bytes used)
  unsigned long long* bar = reinterpret_cast<unsigned long long*>(&smem[TILE]);
  const int t = threadIdx.x;
  if (t == 0) {
    mbar_init(bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  for (int j = t; j <= TILE; j += T) smem[j] = make_int4(0, 0, 0, 0);   // BUG: <= TILE reaches the mbarrier
  fence_proxy_async();
  __syncthreads();
  if (t == 0) {
    mbar_expect_tx_arrive(bar, TILE * sizeof(int4) / 2);
    bulk_g2s(smem, in + (size_t)blockIdx.x * TILE / 2, TILE * sizeof(int4) / 2, bar);
  }
  mbar_wait_parity(bar, 0);
  const int4 a = smem[t];
  out[(size_t)blockIdx.x * TILE + t] = make_int4(a.x + 1, a.y + 1, a.z + 1, a.w + 1);
}
