// BUG: the double-buffered loop lacks its trailing __syncthreads, so a thread refills a stage with cp.async
// (next-but-one tile) while a thread of another warp may still be reading that stage (it reads (t + 64) % T).
#include "../common.cuh"
constexpr int T = 128;
extern "C" __global__ void __launch_bounds__(T) refill_war(const int* __restrict__ x, int* __restrict__ out, int tiles) {
  __shared__ __align__(16) int buf[2][T];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * tiles * T;
  __pipeline_memcpy_async(&buf[0][t], &x[base + t], sizeof(int));
  __pipeline_commit();
  for (int i = 0; i < tiles; ++i) {
    if (i + 1 < tiles) __pipeline_memcpy_async(&buf[(i + 1) & 1][t], &x[base + (size_t)(i + 1) * T + t], sizeof(int));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    out[base + (size_t)i * T + t] = buf[i & 1][(t + 64) % T] ^ t;
    // missing: __syncthreads();  (every read of stage i & 1 must precede its refill in iteration i + 1)
  }
}
