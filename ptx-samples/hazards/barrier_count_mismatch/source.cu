// BUG: named barrier 1 hands a stage from the producer warp (warp 3) to the consumer warps 0-2; the consumers
// give `bar.sync 1, 128` but the producer counts only the consumers, `bar.sync 1, 96`, in the same phase
// (every participant of a barrier phase must give the same count, here 128).
#include "../common.cuh"
constexpr int T = 128;
extern "C" __global__ void __launch_bounds__(T) barrier_count_mismatch(const int* __restrict__ x, int* __restrict__ out) {
  __shared__ int stage[96];
  const int t = threadIdx.x;
  const size_t base = (size_t)blockIdx.x * 96;
  if (t >= 96) {   // producer warp 3
    for (int j = t - 96; j < 96; j += 32) stage[j] = x[base + j] * 5;
    asm volatile("bar.sync 1, 96;" ::: "memory");    // BUG: should be 128 (producer + consumers)
  } else {         // consumer warps 0-2
    asm volatile("bar.sync 1, 128;" ::: "memory");
    out[base + t] = stage[95 - t] - 1;
  }
}
