// BUG: as replicated_value_used, with eight warps (Triton's num_warps=8 over a 32-element block):
// every warp loads the block's 32 elements; warp 0 updates them in place while warps 1-3 copy what
// they read to `out`, with no __syncthreads between (warps 4-7 drop what they read). A word read
// by eight warps before warp 0's store is more than the checker's shadow remembers (four reads);
// when the reads it keeps are warps 4-7's, whose values go nowhere, the reads it forgot, which it
// names in those it keeps, still make the race an error. (With no copies at all the race is only
// a warning: ptx-samples/triton/scale_inplace_w8_sm90.)
#include "../common.cuh"
constexpr int T = 256;
extern "C" __global__ void __launch_bounds__(T) replicated_value_used_w8(float* x, float* __restrict__ out) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t i = (size_t)blockIdx.x * 32 + lane;
  const float v = x[i];
  if (warp == 0) x[i] = 2.0f * v + 1.0f;
  else if (warp < 4) out[((size_t)blockIdx.x * 3 + warp - 1) * 32 + lane] = v;
}
