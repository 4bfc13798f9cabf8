// Looks racy, is correct. Split-K style accumulation: every CTA stages its partial tile of 256 ints in shared
// memory (ordinary stores, fence.proxy.async, __syncthreads), and thread 0 adds the whole tile into the SAME
// global output with one cp.reduce.async.bulk .add.s32; meanwhile threads 0..7 of every CTA bump counters that
// live in the same output words (out[32i]) with atomicAdd. Every element reduction of the bulk operation is a
// relaxed gpu-scope read-modify-write, and integer addition commutes, so the result does not depend on the
// order in which the 4 bulk reductions and 32 atomics reach a word.
// out[j] = sum over b of in[256b + j], plus (j % 32 == 0 ? 1 + 2 + 3 + 4 : 0).
#include "../common.cuh"

constexpr int T = 256;

extern "C" __global__ void __launch_bounds__(T) splitk_reduce(const int* __restrict__ in, int* out) {
  __shared__ alignas(128) int part[T];
  const int t = threadIdx.x, b = blockIdx.x;
  part[t] = in[b * T + t];
  fence_proxy_async();
  __syncthreads();
  if (t == 0) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.s32 [%0], [%1], %2;"
                 :: "l"(out), "r"(sa(part)), "r"(T * 4) : "memory");
    bulk_commit();
  }
  if (t < 8) atomicAdd(&out[32 * t], b + 1);   // ordinary atomics on words the bulk reductions also update
  if (t == 0) bulk_wait0();
}
