// BUG: two-stage cp.async pipeline that commits a group only when there is a next tile, yet always waits with
// cp.async.wait_group 1; in the last iteration that leaves the last tile's group in flight while it is read
// (the epilogue needs cp.async.wait_group 0).
#include "../common.cuh"
constexpr int T = 64;
extern "C" __global__ void __launch_bounds__(T) wait_group_off_by_one(const int* __restrict__ x, int* __restrict__ out, int tiles) {
  __shared__ __align__(16) int buf[2][T];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * tiles * T;
  __pipeline_memcpy_async(&buf[0][t], &x[base + t], sizeof(int));
  __pipeline_commit();
  for (int i = 0; i < tiles; ++i) {
    if (i + 1 < tiles) {
      __pipeline_memcpy_async(&buf[(i + 1) & 1][t], &x[base + (size_t)(i + 1) * T + t], sizeof(int));
      __pipeline_commit();
    }
    __pipeline_wait_prior(1);   // BUG: off by one in the last iteration (no group was committed after tile i)
    __syncthreads();
    out[base + (size_t)i * T + t] = buf[i & 1][(t + 1) % T] + i;
    __syncthreads();
  }
}
