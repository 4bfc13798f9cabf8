// BUG: warp 0 writes a shared table that warp 1 reads with no __syncthreads between the write and the read
// (a race between two warps).
#include "../common.cuh"
constexpr int T = 64;
extern "C" __global__ void __launch_bounds__(T) smem_data_race(const int* __restrict__ x, int* __restrict__ out) {
  __shared__ int table[32];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * T;
  if (t < 32) table[t] = x[base + t] * x[base + t];
  // missing: __syncthreads();
  if (t >= 32) out[base + t - 32] = table[63 - t] + x[base + t];
}
