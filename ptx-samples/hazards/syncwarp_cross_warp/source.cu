// BUG: every thread writes its own shared word, __syncwarp, and reads the word of a thread in the NEXT warp.
// __syncwarp orders memory only among the lanes of one warp; reading another warp's word needs __syncthreads.
#include "../common.cuh"
constexpr int T = 128;
extern "C" __global__ void __launch_bounds__(T) syncwarp_cross_warp(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int s[T];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * T;
  s[t] = in[base + t];
  __syncwarp();                        // BUG: should be __syncthreads()
  out[base + t] = s[(t + 32) % T];     // another warp's word
}
