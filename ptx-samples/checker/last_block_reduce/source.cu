// Looks racy, is correct. The "last block" reduction of the CUDA Programming Guide (memory fence functions), on
// integers: each CTA sums its 64 inputs, thread 0 writes the partial sum to global memory with a plain store,
// __threadfence, and takes a ticket with atomicInc; the CTA that draws the last ticket reads every partial sum
// (written by other CTAs with plain stores) and writes the total, then resets the ticket with a PLAIN store.
// The writer's fence before its atomic (release pattern) and the reader's atomic followed by a fence (acquire
// pattern; the Guide leaves this fence out) order the partial sums before the reads; the reset is ordered after
// every other CTA's atomicInc because the last CTA's atomicInc read the value their chain of increments wrote.
// Which CTA is last varies from run to run, but not the outputs: integer sums, and the ticket ends at 0.
#include "../common.cuh"

constexpr int T = 64;

extern "C" __global__ void __launch_bounds__(T) last_block_reduce(const int* __restrict__ in, int* partial,
                                                                  unsigned* ticket, int* result) {
  __shared__ int s[T];
  __shared__ bool is_last;
  const int t = threadIdx.x, b = blockIdx.x;
  s[t] = in[b * T + t];
  __syncthreads();
  if (t == 0) {
    int sum = 0;
    for (int i = 0; i < T; ++i) sum += s[i];
    partial[b] = sum;
    __threadfence();                                  // the partial sum before the ticket
    const unsigned v = atomicInc(ticket, gridDim.x);
    __threadfence();                                  // the ticket before the reads of the partial sums
    is_last = v == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last && t == 0) {
    int total = 0;
    for (unsigned i = 0; i < gridDim.x; ++i) total += ((volatile int*)partial)[i];
    result[0] = total;
    *ticket = 0;                                      // plain reset, for the next launch
  }
}
