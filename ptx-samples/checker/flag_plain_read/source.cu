// Looks racy, is correct. Producer/consumer pairs of CTAs through global memory: CTA 2p (lane 0) writes a
// payload with plain stores, __threadfence, atomicExch(&flag[p], tag). CTA 2p+1 (lane 0) spins on flag[p] with
// a strong load (pair 0: cuda::atomic_ref relaxed load, ld.relaxed.gpu; pair 1: a volatile load, which is
// relaxed at system scope), __threadfence, and then reads flag[p] again with a PLAIN ld.global. That plain
// load conflicts with the atomic write, but the consumer's strong load observed it, so the atomic write precedes
// the plain load in causality order: no data race, and the plain load returns the tag. The payload is ordered
// by the release pattern (fence; atomic) and the acquire pattern (strong load; fence).
// Pair p (p = 0, 1) writes res[8p .. 8p+7]: payload[0..3] (producer), payload sum + tag, tag, 0, 0 (consumer).
// Every word has one writer and one possible value: deterministic. All 4 CTAs are resident at once.
#include "../common.cuh"
#include <cuda/atomic>

extern "C" __global__ void __launch_bounds__(32) flag_plain_read(const int* __restrict__ in, int* res, int* flag) {
  if (threadIdx.x != 0) return;
  const int p = blockIdx.x / 2;
  int* payload = res + 8 * p;
  if (blockIdx.x % 2 == 0) {                                   // producer
    for (int j = 0; j < 4; ++j) payload[j] = in[4 * p + j] * 5 + j;
    __threadfence();
    atomicExch(&flag[p], 1000 + p);
  } else {                                                     // consumer
    if (p == 0) {
      cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[p]);
      while (f.load(cuda::memory_order_relaxed) == 0) {}
    } else {
      while (*(volatile int*)&flag[p] == 0) {}
    }
    __threadfence();
    int tag;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(tag) : "l"(&flag[p]) : "memory");   // plain load of the flag
    payload[4] = payload[0] + payload[1] + payload[2] + payload[3] + tag;
    payload[5] = tag;
  }
}
