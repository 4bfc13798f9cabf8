// Bulk copies issued BEFORE the expect-tx that accounts for them: their complete-tx may reach the mbarrier
// first, driving its tx-count below zero; the phase still cannot complete early because the one expected
// arrival comes with (or after) the expect-tx. One tile per phase, the phase flips every tile:
//   i % 3 == 0: one 2048-byte copy, then mbarrier.arrive.expect_tx 2048
//   i % 3 == 1: two 1024-byte copies from two arrays, then ONE mbarrier.arrive.expect_tx of their sum
//   i % 3 == 2: three copies (1024 + 512 + 512), then mbarrier.expect_tx 2048 and a plain mbarrier.arrive
#include <cstdint>

constexpr int T = 128;       // threads per block
constexpr int TILE = 512;    // uint32 per tile (2048 bytes)

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void g2s(void* dst, const void* src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(sa(dst)), "l"(src), "r"(bytes), "r"(bar) : "memory");
}

extern "C" __global__ void __launch_bounds__(T) mbarrier_tx_negative(const unsigned* __restrict__ in, const unsigned* __restrict__ in2,
                                                                     unsigned* __restrict__ out, int ntiles) {
  __shared__ alignas(128) unsigned buf[TILE];
  __shared__ alignas(8) uint64_t bar_obj;
  const int t = threadIdx.x;
  const unsigned b = blockIdx.x;
  const uint32_t bar = sa(&bar_obj);
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  for (int i = 0; i < ntiles; ++i) {
    const size_t off = ((size_t)b * ntiles + i) * TILE;
    if (t == 0) {
      if (i % 3 == 0) {
        g2s(buf, in + off, TILE * 4, bar);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(TILE * 4) : "memory");
      } else if (i % 3 == 1) {
        g2s(buf, in + off, TILE * 2, bar);
        g2s(buf + TILE / 2, in2 + off + TILE / 2, TILE * 2, bar);
        asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(TILE * 4) : "memory");
      } else {
        g2s(buf + TILE / 2, in + off + TILE / 2, TILE * 2, bar);
        g2s(buf + TILE / 4, in2 + off + TILE / 4, TILE, bar);
        g2s(buf, in + off, TILE, bar);
        asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(TILE * 4) : "memory");
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
      }
    }
    uint32_t done = 0;
    while (!done)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(bar), "r"((uint32_t)(i & 1)) : "memory");
    for (int j = t; j < TILE; j += T) out[off + j] = buf[j] * 5u + (buf[TILE - 1 - j] >> 7) + (unsigned)i;
    __syncthreads();   // every thread is done with buf (and has seen phase i complete) before the next copy
  }
  if (t == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
}
