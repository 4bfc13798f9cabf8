// BUG: warp 0 writes a table to shared memory and exits; warps 1-2 then synchronise only among themselves
// (named barrier 1 with 64 threads) and read the table. Warp 0 takes no part in barrier 1, so nothing orders its
// stores before their reads (its exit is no release to a barrier it never joins). Usually warp 0 is done long
// before the readers reach the barrier, so the bug hides on a GPU. Fix: a barrier that warp 0 joins before it
// exits, e.g. bar.sync 1, 96 in all three warps (or __syncthreads).
#include "../common.cuh"
extern "C" __global__ void __launch_bounds__(96) exited_warp_named_barrier(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int table[32];
  const int t = threadIdx.x;
  if (t < 32) { table[t] = in[t] * 3; return; }
  int acc = 0;
  for (int j = 0; j < 64; ++j) acc += in[(t + j) & 63];   // some work before the barrier
  asm volatile("bar.sync 1, 64;" ::: "memory");         // warps 1 and 2 only
  out[t - 32] = table[(t + 1) % 32] + acc;
}
