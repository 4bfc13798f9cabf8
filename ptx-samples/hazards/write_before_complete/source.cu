// BUG: the shared tile (data + zero padding) is cleared AFTER the cp.async into its data part was issued, so the
// clearing stores hit bytes that the in-flight copies write (clear first, then __syncthreads, then copy).
#include "../common.cuh"
constexpr int T = 64;
extern "C" __global__ void __launch_bounds__(T) write_before_complete(const int4* __restrict__ x, int4* __restrict__ out) {
  __shared__ __align__(16) int4 tile[2 * T];   // T data slots, then T slots of zero padding
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * T;
  __pipeline_memcpy_async(&tile[t], &x[base + t], sizeof(int4));
  __pipeline_commit();
  for (int j = t; j < 2 * T; j += T) tile[j] = make_int4(0, 0, 0, 0);   // BUG: clears the data slots too
  __pipeline_wait_prior(0);
  __syncthreads();
  int4 a = tile[t], b = tile[t + T / 2];
  out[base + t] = make_int4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
