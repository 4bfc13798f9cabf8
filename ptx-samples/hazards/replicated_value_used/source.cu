// BUG: every warp loads the block's 32 elements (as Triton does when a block holds fewer elements
// than the CTA has threads); warp 0 updates them in place while the other warps copy what they
// read to `out`, with no __syncthreads between: those copies hold the old or the new value, by
// timing. (Without the copies the other warps' values go nowhere, and the race is only a warning:
// ptx-samples/triton/scale_inplace_sm90.)
#include "../common.cuh"
constexpr int T = 128;
extern "C" __global__ void __launch_bounds__(T) replicated_value_used(float* x, float* __restrict__ out) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t i = (size_t)blockIdx.x * 32 + lane;
  const float v = x[i];
  if (warp == 0) x[i] = 2.0f * v + 1.0f;
  else out[((size_t)blockIdx.x * 3 + warp - 1) * 32 + lane] = v;
}
