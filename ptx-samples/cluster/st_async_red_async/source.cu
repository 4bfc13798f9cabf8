// st.async and red.async into the peer CTA of a cluster of 2 (__cluster_dims__(2,1,1); grid 4 = 2 clusters,
// 64 threads). Every thread t of CTA s (peer = rank ^ 1) writes, through mapa.shared::cluster addresses of the
// peer's arrays, completing tx on the peer's mbarrier:
//   st.async .b32 (vals[s*64+t]), .v2.b32, .v4.b32, .b64, .v2.f32 (one element of each receive array)
//   red.async .add.u32, .add.s32, .inc.u32, .dec.u32, .min.u32, .max.u32, .min.s32, .max.s32, .and.b32,
//             .or.b32, .xor.b32 (one counter each) and .add.u64
// Each receiver expects 64 * (4+8+16+8+8) + 64 * 11 * 4 + 64 * 8 = 6144 bytes (arrive.expect_tx before the
// cluster barrier that precedes every remote operation), waits with try_wait.parity.acquire.cluster (the
// complete-tx of st.async/red.async is a release at cluster scope), dumps, and the cluster syncs before exit.
// All counter operations of one kind commute (inc/dec all use one bound), so the result is order-independent.
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint32_t mapa(const void* p, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_u32(p)), "r"(rank));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

#define RED_U32(OP, addr, v, bar)                                                                              \
  asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes." OP " [%0], %1, [%2];" \
               :: "r"(addr), "r"(v), "r"(bar) : "memory")

struct Recv {
  uint32_t r32[64];
  uint2 r64[64];
  uint4 r128[64];
  unsigned long long rb64[64];
  float2 rv2f[64];
  uint32_t cnt[12];          // 11 used
  unsigned long long c64;
};

extern "C" __global__ void __cluster_dims__(2, 1, 1) st_async_red_async(const uint32_t* __restrict__ vals, uint32_t* __restrict__ dump) {
  __shared__ __align__(16) Recv rv;
  __shared__ __align__(8) uint64_t bar;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const uint32_t peer = rank ^ 1u, t = threadIdx.x, s = blockIdx.x;

  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(&bar)), "r"(6144u) : "memory");
  }
  if (t < 12) {
    const uint32_t init = t == 0 ? 0x10u : t == 1 ? (uint32_t)-5 : t == 2 ? 0u : t == 3 ? 10u : t == 4 ? 0xffffffffu
                        : t == 5 ? 0u : t == 6 ? 0x7fffffffu : t == 7 ? 0x80000000u : t == 8 ? 0xffffffffu
                        : t == 9 ? 0u : t == 10 ? 0x0f0f0f0fu : 0u;
    rv.cnt[t] = init;
  }
  if (t == 0) rv.c64 = 1;
  cluster_sync();   // the peer's mbarrier expects its bytes and its counters hold their initial values

  const uint32_t pbar = mapa(&bar, peer);
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
               :: "r"(mapa(&rv.r32[t], peer)), "r"(vals[s * 64 + t]), "r"(pbar) : "memory");
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
               :: "r"(mapa(&rv.r64[t], peer)), "r"(s * 1000u + t), "r"(~(s * 1000u + t)), "r"(pbar) : "memory");
  asm volatile("st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];"
               :: "r"(mapa(&rv.r128[t], peer)), "r"(t), "r"(s), "r"(t * t), "r"(0xA5A5A5A5u ^ (s * 64u + t)), "r"(pbar) : "memory");
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];"
               :: "r"(mapa(&rv.rb64[t], peer)), "l"(((unsigned long long)(s + 1) << 40) | (t * 0x10001ull)), "r"(pbar) : "memory");
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];"
               :: "r"(mapa(&rv.rv2f[t], peer)), "f"((float)t * 0.5f - 3.0f), "f"((float)s + 0.25f), "r"(pbar) : "memory");

  const uint32_t c = mapa(&rv.cnt[0], peer);
  const int sv = ((int)t - 30) * ((int)t + (int)s);
  RED_U32("add.u32", c + 0, t + 1u, pbar);
  RED_U32("add.s32", c + 4, t - 40u, pbar);
  RED_U32("inc.u32", c + 8, 50u, pbar);
  RED_U32("dec.u32", c + 12, 40u, pbar);
  RED_U32("min.u32", c + 16, t * 2654435761u, pbar);
  RED_U32("max.u32", c + 20, t * 2654435761u, pbar);
  RED_U32("min.s32", c + 24, (uint32_t)sv, pbar);
  RED_U32("max.s32", c + 28, (uint32_t)sv, pbar);
  RED_U32("and.b32", c + 32, ~(1u << ((t * 3u + s) % 32u)), pbar);
  RED_U32("or.b32", c + 36, 1u << ((t * 5u + s) % 32u), pbar);
  RED_U32("xor.b32", c + 40, vals[256 + s * 64 + t], pbar);
  asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 [%0], %1, [%2];"
               :: "r"(mapa(&rv.c64, peer)), "l"(((unsigned long long)t << 33) + s), "r"(pbar) : "memory");

  uint32_t ok = 0;
  while (!ok) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(smem_u32(&bar)), "r"(0u) : "memory");
  }
  // dump: the receive struct word by word (718 words: 64+128+256+128+128+12+2), padded to 720
  const uint32_t* w = reinterpret_cast<const uint32_t*>(&rv);
  uint32_t* out = dump + s * 720;
  for (uint32_t i = t; i < 720; i += blockDim.x) {
    uint32_t v = 0;
    if (i < 64 + 128 + 256 + 128 + 128) v = w[i];
    else if (i < 64 + 128 + 256 + 128 + 128 + 11) v = rv.cnt[i - 704];
    else if (i == 716) v = (uint32_t)rv.c64;
    else if (i == 717) v = (uint32_t)(rv.c64 >> 32);
    out[i] = v;
  }
  cluster_sync();   // keep every CTA's shared memory alive until all remote operations into it completed
}
