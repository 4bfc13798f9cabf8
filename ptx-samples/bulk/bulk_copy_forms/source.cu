// Non-tensor bulk copies (the Hopper copy engine) in all their sm_90 forms. Per tile (3 per block, the
// mbarrier phase flips each time): thread 0 arrives with expect_tx for 8176 bytes and issues 10 global->shared
// copies of 16..4096 bytes (each a multiple of 16) into one 8192-byte buffer, cycling through
//   cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes        (+ .L2::cache_hint)
//   cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes            (+ .L2::cache_hint)
// 16 bytes of the buffer are never copied (they keep the pattern written first). Everybody waits with
// try_wait.parity, dumps the buffer, updates it in place, fence.proxy.async.shared::cta, bar.sync, and thread 0
// stores it back with 10 shared->global bulk copies (with / without .L2::cache_hint) in two bulk async-groups,
// waits with cp.async.bulk.wait_group.read 1 then .read 0 before the buffer is refilled, and finally
// cp.async.bulk.wait_group 0. cp.async.bulk.prefetch.L2 warms the next tile.
#include <cstdint>

constexpr int T = 128;                 // threads per block
constexpr int BUF = 8192;              // bytes
constexpr int NPIECE = 10;
constexpr int LOADED = 8176;           // bytes the 10 loads bring in
// global->shared pieces: destination offset, source offset (in the tile's 8192 source bytes), size
__constant__ int ld_dst[NPIECE] = {0, 4096, 4112, 6128, 6176, 7200, 7280, 7776, 7808, 8064};   // 6112..6127 never loaded
__constant__ int ld_src[NPIECE] = {4080, 4064, 2064, 2016, 992, 912, 416, 384, 128, 0};
__constant__ int ld_size[NPIECE] = {4096, 16, 2000, 48, 1024, 80, 496, 32, 256, 128};
// shared->global pieces (same offset on both sides)
__constant__ int st_off[NPIECE] = {0, 4096, 6144, 7168, 7680, 7936, 8064, 8128, 8160, 8176};
__constant__ int st_size[NPIECE] = {4096, 2048, 1024, 512, 256, 128, 64, 32, 16, 16};

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(T) bulk_copy_forms(const unsigned char* __restrict__ in, unsigned* __restrict__ raw,
                                                                unsigned char* __restrict__ st, int ntiles) {
  __shared__ alignas(128) unsigned buf[BUF / 4];
  __shared__ alignas(8) uint64_t bar_obj;
  const int t = threadIdx.x;
  const unsigned b = blockIdx.x;
  const uint32_t bar = sa(&bar_obj);
  unsigned char* sbuf = reinterpret_cast<unsigned char*>(buf);

  for (int j = t; j < BUF / 4; j += T) buf[j] = 0x5A5A0000u + (unsigned)j * 0x10001u + (b << 28);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // generic writes -> visible to the async proxy
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  uint64_t pol_ld, pol_st;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol_ld));
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, 0.5;" : "=l"(pol_st));

  for (int i = 0; i < ntiles; ++i) {
    const unsigned char* src = in + ((size_t)b * ntiles + i) * BUF;
    if (t == 0) {
      if (i + 1 < ntiles) {
        if (i & 1) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" :: "l"(src + BUF), "r"(BUF) : "memory");
        else asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" :: "l"(src + BUF), "r"(BUF), "l"(pol_ld) : "memory");
      }
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(LOADED) : "memory");
      for (int k = 0; k < NPIECE; ++k) {
        const uint32_t d = sa(sbuf + ld_dst[k]);
        const unsigned char* s = src + ld_src[k];
        const uint32_t n = ld_size[k];
        switch (k & 3) {
          case 0:
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         :: "r"(d), "l"(s), "r"(n), "r"(bar) : "memory");
            break;
          case 1:
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
                         :: "r"(d), "l"(s), "r"(n), "r"(bar), "l"(pol_ld) : "memory");
            break;
          case 2:
            asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         :: "r"(d), "l"(s), "r"(n), "r"(bar) : "memory");
            break;
          default:
            asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
                         :: "r"(d), "l"(s), "r"(n), "r"(bar), "l"(pol_ld) : "memory");
            break;
        }
      }
    }
    uint32_t done = 0;
    while (!done)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(bar), "r"((uint32_t)(i & 1)) : "memory");

    unsigned* r = raw + ((size_t)b * ntiles + i) * (BUF / 4);
    for (int j = t; j < BUF / 4; j += T) {      // each thread dumps and then updates only its own words
      const unsigned v = buf[j];
      r[j] = v;
      buf[j] = v * 3u + ((unsigned)j ^ (unsigned)i);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // the updates -> visible to the bulk store
    __syncthreads();

    if (t == 0) {
      unsigned char* dst = st + ((size_t)b * ntiles + i) * BUF;
      for (int k = 0; k < NPIECE; ++k) {
        if (k & 1)
          asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;"
                       :: "l"(dst + st_off[k]), "r"(sa(sbuf + st_off[k])), "r"(st_size[k]), "l"(pol_st) : "memory");
        else
          asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                       :: "l"(dst + st_off[k]), "r"(sa(sbuf + st_off[k])), "r"(st_size[k]) : "memory");
        if (k == NPIECE / 2 - 1) asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");   // the first group has read its source
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");   // all of buf has been read: may refill
    }
  }
  if (t == 0) {
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");          // the stores are complete
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
  }
}
