// BUG: the kernel consumes its input in place and clears x[i] right after issuing the cp.async that reads x[i],
// before cp.async.wait_group, so the copy may read the zero (clear after the wait).
#include "../common.cuh"
constexpr int T = 64;
extern "C" __global__ void __launch_bounds__(T) global_source_overwritten(int* __restrict__ x, int* __restrict__ out) {
  __shared__ __align__(16) int xs[T];
  const int t = threadIdx.x;
  const size_t i = (size_t)blockIdx.x * T + t;
  __pipeline_memcpy_async(&xs[t], &x[i], sizeof(int));
  __pipeline_commit();
  x[i] = 0;   // BUG: the copy may not have read x[i] yet
  __pipeline_wait_prior(0);
  __syncthreads();
  out[i] = xs[t] + xs[(t + 1) % T];
}
