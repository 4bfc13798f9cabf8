// Looks racy (the producers never wait on the barrier that publishes their writes, and the first two rounds
// are written without any wait), is correct. A 2-stage ring in shared
// memory over named barriers, 128 threads: warps 0-1 produce, warps 2-3 consume. For stage s = it % 2:
//   full[s]  = barrier 1 + s: producers bar.arrive (no wait) after writing, consumers bar.sync before reading;
//   empty[s] = barrier 3 + s: consumers bar.arrive after reading, producers bar.sync before rewriting (it >= 2).
// Each barrier counts 128 threads (64 arriving + 64 syncing). bar.arrive orders the arriving threads' earlier
// accesses before the completion of the barrier, which the syncing threads wait for.
// out[64*(6b + it) + c] = 2 * in[64*(6b + it) + (c + 1) % 64].
#include "../common.cuh"

constexpr int IT = 6, W = 64;

__device__ __forceinline__ void bar_sync(int id) { asm volatile("bar.sync %0, 128;" :: "r"(id) : "memory"); }
__device__ __forceinline__ void bar_arrive(int id) { asm volatile("bar.arrive %0, 128;" :: "r"(id) : "memory"); }

extern "C" __global__ void __launch_bounds__(128) named_barrier_ring(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int buf[2][W];
  const int t = threadIdx.x;
  const int* src = in + blockIdx.x * IT * W;
  int* dst = out + blockIdx.x * IT * W;
  for (int it = 0; it < IT; ++it) {
    const int s = it & 1;
    if (t < W) {                                   // producers
      if (it >= 2) bar_sync(3 + s);                //   wait until stage s is empty
      buf[s][t] = src[it * W + t];
      bar_arrive(1 + s);                           //   stage s is full
    } else {                                       // consumers
      const int c = t - W;
      bar_sync(1 + s);                             //   wait until stage s is full
      dst[it * W + c] = buf[s][(c + 1) % W] * 2;
      if (it + 2 < IT) bar_arrive(3 + s);          //   stage s is empty (unless never refilled)
    }
  }
}
