// BUG: each thread's 4-byte cp.async is committed but never waited on (no cp.async.wait_group); __syncthreads
// does not wait for async copies, so the read of the neighbour's element may see shared memory before it lands.
#include "../common.cuh"
constexpr int T = 128;
extern "C" __global__ void __launch_bounds__(T) cp_async_no_wait(const int* __restrict__ x, int* __restrict__ out) {
  __shared__ __align__(16) int xs[T];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * T;
  __pipeline_memcpy_async(&xs[t], &x[base + t], sizeof(int));
  __pipeline_commit();
  // missing: __pipeline_wait_prior(0);
  __syncthreads();
  out[base + t] = 3 * xs[(t + 1) % T] - xs[t];
}
