// BUG: a per-CTA work queue in shared memory (block-scope cuda::atomic_ref, fetch_add) hands out the indices
// 0..63 to the CTA's threads, but the output index forgets the CTA's offset: every CTA writes out[0..63], so
// the plain stores of different CTAs race. Fix: out[blockIdx.x * N + i].
#include "../common.cuh"
#include <cuda/atomic>
constexpr int N = 64;
extern "C" __global__ void __launch_bounds__(N) workq_wrong_index(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int next;
  if (threadIdx.x == 0) next = 0;
  __syncthreads();
  int i;
  while ((i = cuda::atomic_ref<int, cuda::thread_scope_block>(next).fetch_add(1)) < N)
    out[i] = in[blockIdx.x * N + i] * 2;          // BUG: should be out[blockIdx.x * N + i]
}
