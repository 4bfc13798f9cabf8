// cp.async completion tracked by an mbarrier instead of async-groups. One mbarrier, initialised with the
// block's thread count, one phase per batch:
//  even batches: two 8-byte cp.async per thread, then cp.async.mbarrier.arrive.noinc: the asynchronous
//    arrive-on (when all of the thread's prior cp.async are done) IS the thread's arrival; waits with
//    test_wait.parity (half the threads) / try_wait.parity with a suspend-time hint (the other half);
//  odd batches: one 16-byte cp.async, cp.async.mbarrier.arrive (pending count +1, then the asynchronous
//    arrive-on), then an explicit mbarrier.arrive whose state token is waited on with test_wait / try_wait.
// After the phase completes every thread reads other threads' copies. Then the cuda::barrier form:
// cuda::memcpy_async(block, ..., barrier) + arrive_and_wait (the seed document's example), twice.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cstdint>
#pragma nv_diag_suppress static_var_with_dynamic_init

constexpr int T = 128;       // threads per block
constexpr int NB = 4;        // raw mbarrier batches

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(T) cp_async_mbarrier_arrive(const uint4* __restrict__ in, const int* __restrict__ in2,
                                                                         unsigned* __restrict__ out, int* __restrict__ out2) {
  __shared__ alignas(16) uint4 buf[T];
  __shared__ alignas(16) int sh2[T];
  __shared__ alignas(8) uint64_t bar;
  __shared__ cuda::barrier<cuda::thread_scope_block> cbar;
  auto block = cooperative_groups::this_thread_block();
  const int t = threadIdx.x;
  const unsigned b = blockIdx.x;
  const uint32_t barp = sa(&bar);

  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(barp), "r"(T) : "memory");
    init(&cbar, T);
  }
  __syncthreads();

  for (int i = 0; i < NB; ++i) {
    const uint4* g = in + ((size_t)b * NB + i) * T + t;
    if ((i & 1) == 0) {
      const char* gc = reinterpret_cast<const char*>(g);
      char* sc = reinterpret_cast<char*>(&buf[t]);
      asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(sa(sc)), "l"(gc) : "memory");
      asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(sa(sc + 8)), "l"(gc + 8) : "memory");
      asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(barp) : "memory");
      uint32_t done = 0;
      if (t < T / 2) {
        while (!done)
          asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                       : "=r"(done) : "r"(barp), "r"((uint32_t)(i & 1)) : "memory");
      } else {
        while (!done)
          asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                       : "=r"(done) : "r"(barp), "r"((uint32_t)(i & 1)), "r"(20000u) : "memory");
      }
    } else {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sa(&buf[t])), "l"(g) : "memory");
      asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" :: "r"(barp) : "memory");
      uint64_t st;
      asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(barp) : "memory");
      uint32_t done = 0;
      if (t & 1) {
        while (!done)
          asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                       : "=r"(done) : "r"(barp), "l"(st) : "memory");
      } else {
        while (!done)
          asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                       : "=r"(done) : "r"(barp), "l"(st) : "memory");
      }
    }
    // the phase is complete: every thread's copies of this batch are visible to every thread
    const uint4 n = buf[(t + 1) % T];
    const uint4 m = buf[T - 1 - t];
    out[((size_t)b * NB + i) * T + t] = (n.x ^ m.w) + 7u * n.y - (m.z >> 5) + (n.w << 2) + (unsigned)i;
    __syncthreads();   // everyone has read buf before the next batch's copies overwrite it
  }

  for (int j = 0; j < 2; ++j) {
    cuda::memcpy_async(block, sh2, in2 + ((size_t)b * 2 + j) * T, sizeof(int) * T, cbar);
    cbar.arrive_and_wait();
    out2[((size_t)b * 2 + j) * T + t] = sh2[T - 1 - t] * 3 + sh2[(t + 5) % T] - j;
    block.sync();
  }
  if (t == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(barp) : "memory");
}
