// BUG: the "all warps done" mbarrier is initialised for one arrival per phase, but thread 0 arrives on behalf of
// the 4 warps with count 4, driving the pending arrival count below zero (init it with 4, or arrive with 1).
#include "../common.cuh"
constexpr int T = 128;
constexpr int NWARPS = T / 32;
extern "C" __global__ void __launch_bounds__(T) mbarrier_arrive_underflow(const int* __restrict__ x, int* __restrict__ out) {
  __shared__ int partial[NWARPS];
  __shared__ __align__(8) unsigned long long done;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  if (t == 0) mbar_init(&done, 1);
  __syncthreads();
  int v = x[(size_t)blockIdx.x * T + t];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (t == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" :: "r"(smem_addr(&done)), "r"(NWARPS) : "memory");   // BUG
  mbar_wait_parity(&done, 0);
  if (t < NWARPS) out[(size_t)blockIdx.x * NWARPS + t] = partial[t] + partial[(t + 1) % NWARPS];
}
