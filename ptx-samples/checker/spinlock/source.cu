// Looks racy (plain read-modify-writes of shared global data by every CTA), is correct. Lane 0 of each warp
// (2 per CTA, 8 CTAs) takes a global spin lock with atomicCAS, __threadfence, updates three accumulators with
// PLAIN loads and stores (critical section), __threadfence, and releases the lock with atomicExch. The
// acquire (atomicCAS that saw 0, then a fence) and release (fence, then atomicExch) order every critical
// section after the previous one. The updates commute (sum, count, max), so the outputs do not depend on the
// order in which the warps took the lock: acc = {sum of in, 16, max of in}, lock = 0.
#include "../common.cuh"

extern "C" __global__ void __launch_bounds__(64) spinlock(const int* __restrict__ in, int* acc, int* lock) {
  const int t = threadIdx.x;
  if (t % 32 != 0) return;
  const int v = in[blockIdx.x * 2 + t / 32];
  while (atomicCAS(lock, 0, 1) != 0) {}
  __threadfence();
  acc[0] += v;                              // critical section: plain read-modify-writes
  acc[1] += 1;
  if (v > acc[2]) acc[2] = v;
  __threadfence();
  atomicExch(lock, 0);
}
