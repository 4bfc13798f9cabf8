// Looks racy, is correct. In each CTA thread 0 publishes a value in shared memory: a plain store of `data`,
// __threadfence_block, a volatile store of 1 to `flag`. Thread 32 (another warp) spins on a volatile load of
// `flag`, __threadfence_block, reads `data`, and then resets `flag` with a PLAIN store. The reset conflicts with
// thread 0's volatile store of the same word, but thread 32's volatile load observed that store, so the store
// precedes the reset in causality order (observation order, then program order): no data race. After a
// __syncthreads thread 0 reads `flag` (plainly) back: 0. Thread 0's release (fence; volatile store) and thread
// 32's acquire (volatile load; fence) order `data` as well.
// out[2b] = the value thread 32 read (in[b] * 3 + 1), out[2b + 1] = flag after the reset (0).
#include "../common.cuh"

extern "C" __global__ void __launch_bounds__(64) flag_reset(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int data;
  __shared__ int flag;
  const int t = threadIdx.x, b = blockIdx.x;
  if (t == 0) flag = 0;
  __syncthreads();
  if (t == 0) {
    data = in[b] * 3 + 1;
    __threadfence_block();
    *(volatile int*)&flag = 1;
  } else if (t == 32) {
    while (*(volatile int*)&flag == 0) {}
    __threadfence_block();
    out[2 * b] = data;
    flag = 0;                          // plain store to the flag, after observing the volatile store
  }
  __syncthreads();
  if (t == 0) out[2 * b + 1] = flag;   // plain read: the reset is ordered before it by the barrier
}
