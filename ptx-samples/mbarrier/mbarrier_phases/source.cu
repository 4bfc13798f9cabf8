// The mbarrier object on its own (no copies): init, arrive with a count, arrive_drop, arrive.noComplete +
// pending_count, expect_tx / complete_tx / arrive.expect_tx (tx-count), test_wait and try_wait in the token and
// the .parity forms (try_wait with a suspend-time hint), inval and re-init; 4 warps, several phases.
// Only deterministic observations are recorded: a phase is tested only where bar.sync orders every arrival it
// needs either before the test (complete) or after it (incomplete), and data is read only after a wait.
#include <cstdint>

constexpr int T = 128;       // threads per block
constexpr int NOBS = 16;     // observations per block

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ uint32_t test_parity(uint32_t bar, uint32_t parity) {
  uint32_t r;
  asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
               : "=r"(r) : "r"(bar), "r"(parity) : "memory");
  return r;
}
__device__ __forceinline__ uint32_t test_token(uint32_t bar, uint64_t st) {
  uint32_t r;
  asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
               : "=r"(r) : "r"(bar), "l"(st) : "memory");
  return r;
}
__device__ __forceinline__ void wait_parity_try(uint32_t bar, uint32_t parity) {
  uint32_t r = 0;
  while (!r)
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(r) : "r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void wait_parity_try_hint(uint32_t bar, uint32_t parity) {
  uint32_t r = 0;
  while (!r)
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2, %3;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(r) : "r"(bar), "r"(parity), "r"(1000u) : "memory");
}
__device__ __forceinline__ void wait_parity_test(uint32_t bar, uint32_t parity) {
  while (!test_parity(bar, parity)) { }
}
__device__ __forceinline__ void wait_token_test(uint32_t bar, uint64_t st) {
  while (!test_token(bar, st)) { }
}
__device__ __forceinline__ void wait_token_try_hint(uint32_t bar, uint64_t st) {
  uint32_t r = 0;
  while (!r)
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.shared::cta.b64 p, [%1], %2, %3;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(r) : "r"(bar), "l"(st), "r"(500u) : "memory");
}

extern "C" __global__ void __launch_bounds__(T) mbarrier_phases(const unsigned* __restrict__ in, unsigned* __restrict__ vals,
                                                                unsigned* __restrict__ obs) {
  __shared__ alignas(8) uint64_t bar_obj;
  __shared__ unsigned data[T];
  __shared__ unsigned rec[NOBS];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const unsigned b = blockIdx.x;
  const uint32_t bar = sa(&bar_obj);
  const unsigned* src = in + (size_t)b * 5 * T;
  unsigned* val = vals + (size_t)b * 5 * T;

  if (t < NOBS) rec[t] = 0xFFFFFFFFu;
  if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(T) : "memory");
  __syncthreads();
  // fresh barrier, phase 0, nobody has arrived (every arrival is after the next bar.sync)
  if (t == 0) {
    rec[0] = test_parity(bar, 0);            // 0: phase 0 is incomplete
    rec[1] = test_parity(bar, 1);            // 1: parity 1 = the phase before phase 0, reported complete
  }
  __syncthreads();

  // ---- phase 0 (parity 0): one arrival with count 32 per warp, by lane 0 after __syncwarp
  data[t] = src[t];
  __syncwarp();
  if (lane == 0) asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(32) : "memory");
  wait_parity_try(bar, 0);
  val[t] = data[(t + 37) % T] * 3u + 1u;
  __syncthreads();
  if (t == 0) rec[2] = test_parity(bar, 0);  // 1: phase 0 complete (the current phase 1 is not)
  __syncthreads();

  // ---- phase 1 (parity 1): warp 3 arrives and drops out, so later phases expect 96 arrivals
  data[t] = src[T + t];
  if (warp == 3) {
    asm volatile("mbarrier.arrive_drop.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
  } else {
    uint64_t st;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    wait_token_test(bar, st);
    val[T + t] = data[(5 * t + 3) % T] ^ (unsigned)t;
  }
  __syncthreads();
  if (t == 0) {
    rec[3] = test_parity(bar, 1);            // 1: phase 1 complete
    rec[4] = test_parity(bar, 0);            // 0: phase 2 (parity 0) is current and incomplete
  }
  __syncthreads();

  // ---- phase 2 (parity 0), 96 expected: threads 2..95 arrive; after a bar.sync thread 0 arrives with
  // .noComplete (2 pending before it, so it cannot complete the phase); after another bar.sync thread 1 completes it
  if (t < 96) data[t] = src[2 * T + t];
  if (t >= 2 && t < 96) asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
  __syncthreads();
  uint64_t st0 = 0;
  if (t == 0) {
    uint32_t pending;
    asm volatile("mbarrier.arrive.noComplete.shared::cta.b64 %0, [%1], %2;" : "=l"(st0) : "r"(bar), "r"(1) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(st0));
    rec[5] = pending;                        // 2: pending arrivals before thread 0's arrive
    rec[6] = test_token(bar, st0);           // 0: thread 1 has not arrived yet
    rec[7] = test_parity(bar, 0);            // 0: same phase, by parity
  }
  __syncthreads();
  if (t == 1) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
  if (t == 0) wait_token_test(bar, st0);
  else wait_parity_try_hint(bar, 0);         // the dropped warp may still observe the phase
  if (t < 96) val[2 * T + t] = data[95 - t] + 1000u * (unsigned)t;
  __syncthreads();

  // ---- phase 3 (parity 1), tx-count: thread 0 expects 256 bytes, threads 0..79 complete 4 each (64 of them
  // before their arrival, 16 after it), thread 5 arrives with expect_tx 64; the phase needs 96 arrivals and tx 0
  if (t == 0) asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(256) : "memory");
  __syncthreads();
  if (t < 96) {
    data[t] = src[3 * T + t];
    if (t < 32) asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(4) : "memory");
    else if (t < 64) asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(4) : "memory");
    uint64_t st;
    if (t == 5) asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %0, [%1], %2;" : "=l"(st) : "r"(bar), "r"(64) : "memory");
    else asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    if (t >= 64 && t < 80) asm volatile("mbarrier.complete_tx.shared.b64 [%0], %1;" :: "r"(bar), "r"(4) : "memory");
    if (t & 1) wait_token_try_hint(bar, st);
    else wait_parity_test(bar, 1);
    val[3 * T + t] = data[(t + 48) % 96] - (unsigned)t * 7u;
  }
  __syncthreads();
  if (t == 0) {
    rec[8] = test_parity(bar, 1);            // 1: phase 3 complete
    rec[9] = test_parity(bar, 0);            // 0: phase 4 current, nobody arrived
  }
  __syncthreads();

  // ---- invalidate, re-init with 64 (phase 0 again); warps 2 and 3 arrive (lane 0 of warp 2 with count 32
  // after __syncwarp, warp 3 one by one), everybody waits
  if (t == 0) {
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(64) : "memory");
  }
  __syncthreads();
  if (t == 0) {
    rec[10] = test_parity(bar, 0);           // 0: fresh phase 0
    rec[11] = test_parity(bar, 1);           // 1
  }
  __syncthreads();
  if (warp >= 2) data[t] = src[4 * T + t];
  if (warp == 2) {
    __syncwarp();
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(32) : "memory");
  } else if (warp == 3) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
  }
  if (warp == 0) wait_parity_test(bar, 0);
  else wait_parity_try_hint(bar, 0);
  val[4 * T + t] = data[64 + ((t * 3) & 63)] + (unsigned)t;
  __syncthreads();
  if (t == 0) {
    rec[12] = test_parity(bar, 0);           // 1: phase 0 of the new barrier complete
    rec[13] = test_parity(bar, 1);           // 0: phase 1 current
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
  }
  __syncthreads();
  if (t < NOBS) obs[b * NOBS + t] = rec[t];
}
