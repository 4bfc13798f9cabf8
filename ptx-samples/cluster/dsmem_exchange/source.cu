// Distributed shared memory in a cluster of 4 (__cluster_dims__(4,1,1); grid 8 = 2 clusters, 64 threads):
//   0. barrier.cluster.arrive.relaxed + barrier.cluster.wait (nothing to order yet: every CTA has started)
//   1. each CTA fills arr[64] (from vals), its mailbox[64] (0xffffffff) and cnt[8] (reduction identities) with generic stores
//   2. cooperative_groups cluster.sync()
//   3. thread t: ld.shared::cluster of arr[t] of the next rank (mapa.shared::cluster.u32), generic load of
//      arr[63-t] of the previous rank (cluster.map_shared_rank), getctarank of both mapped addresses;
//      atom.shared::cluster.add 1 on rank 0's cnt[0] and red.shared::cluster.add of the returned value on
//      cnt[1] (the returned values are a permutation of 0..255, their sum is fixed); red add/or/and/xor,
//      atom max, generic atomicInc (wrap 100) on rank 0's cnt[2..7]; st.shared::cluster into mailbox[t] of the next rank
//   4. barrier.cluster.arrive.release + barrier.cluster.wait.acquire
//   5. outputs; special registers (thread 0)
//   6. cluster.sync() before exit
// out, per CTA c = blockIdx.x, 384 words: [0,64) next's arr, [64,128) previous's arr reversed, [128,192) mailbox,
// [192,256) getctarank results (next | prev << 8), [256,264) cnt (final on rank 0; identities elsewhere),
// [264,280) special registers, the rest untouched.
#include <cooperative_groups.h>
#include <cstdint>
namespace cg = cooperative_groups;

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint32_t mapa(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
#define SREG(name) ([] { uint32_t r; asm volatile("mov.u32 %0, %%" name ";" : "=r"(r)); return r; }())

extern "C" __global__ void __cluster_dims__(4, 1, 1) dsmem_exchange(const uint32_t* __restrict__ vals, uint32_t* __restrict__ out) {
  __shared__ uint32_t arr[64];
  __shared__ uint32_t mailbox[64];
  __shared__ uint32_t cnt[8];
  cg::cluster_group cluster = cg::this_cluster();
  const uint32_t rank = cluster.block_rank();
  const uint32_t next = (rank + 1) % 4, prev = (rank + 3) % 4;
  const uint32_t t = threadIdx.x;
  uint32_t* o = out + blockIdx.x * 384;

  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");

  arr[t] = vals[blockIdx.x * 64 + t];
  mailbox[t] = 0xffffffffu;
  if (t < 8) cnt[t] = t == 5 ? 0xffffffffu : t == 6 ? 0x12345678u : 0u;   // and: all ones; xor: a start value
  cluster.sync();

  // loads from the neighbours' shared memory
  const uint32_t ra = mapa(smem_u32(&arr[t]), next);
  uint32_t v_next;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v_next) : "r"(ra) : "memory");
  const uint32_t* prev_arr = cluster.map_shared_rank(arr, prev);
  const uint32_t v_prev = prev_arr[63 - t];
  uint32_t rk_next, rk_prev;
  asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(rk_next) : "r"(ra));
  asm volatile("getctarank.u64 %0, %1;" : "=r"(rk_prev) : "l"(prev_arr));

  // atomics and reductions on rank 0's counters
  const uint32_t c0 = mapa(smem_u32(&cnt[0]), 0);
  const uint32_t g = rank * 64 + t;   // 0..255 within the cluster
  uint32_t old;
  asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(old) : "r"(c0) : "memory");
  asm volatile("red.shared::cluster.add.u32 [%0], %1;" :: "r"(c0 + 4), "r"(old) : "memory");
  asm volatile("red.shared::cluster.add.u32 [%0], %1;" :: "r"(c0 + 8), "r"(g * g + 7u) : "memory");
  asm volatile("{\n\t.reg .b32 ignored;\n\tatom.shared::cluster.max.u32 ignored, [%0], %1;\n\t}"   // old value: order-dependent, unused
               :: "r"(c0 + 12), "r"((g * 37u) % 251u) : "memory");
  asm volatile("red.shared::cluster.or.b32 [%0], %1;" :: "r"(c0 + 16), "r"(1u << ((g * 7u) % 29u)) : "memory");
  asm volatile("red.shared::cluster.and.b32 [%0], %1;" :: "r"(c0 + 20), "r"(~(1u << ((g * 5u + 3u) % 31u))) : "memory");
  asm volatile("red.shared::cluster.xor.b32 [%0], %1;" :: "r"(c0 + 24), "r"((g + 1u) * 0x9E3779B9u) : "memory");
  atomicInc(cluster.map_shared_rank(&cnt[7], 0), 100u);   // generic atom.inc; 256 increments wrapping at 100

  // store into the next rank's mailbox
  asm volatile("st.shared::cluster.u32 [%0], %1;"
               :: "r"(mapa(smem_u32(&mailbox[t]), next)), "r"(blockIdx.x * 1000u + rank * 100u + t) : "memory");

  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");

  o[t] = v_next;
  o[64 + t] = v_prev;
  o[128 + t] = mailbox[t];
  o[192 + t] = rk_next | (rk_prev << 8);
  if (t < 8) o[256 + t] = cnt[t];
  if (t == 0) {
    uint32_t explicit_cluster;
    asm volatile("{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(explicit_cluster));
    const uint32_t s[16] = {SREG("cluster_ctarank"), SREG("cluster_nctarank"),
                            SREG("clusterid.x"), SREG("clusterid.y"), SREG("clusterid.z"),
                            SREG("nclusterid.x"), SREG("nclusterid.y"), SREG("nclusterid.z"),
                            SREG("cluster_ctaid.x"), SREG("cluster_ctaid.y"), SREG("cluster_ctaid.z"),
                            SREG("cluster_nctaid.x"), SREG("cluster_nctaid.y"), SREG("cluster_nctaid.z"),
                            explicit_cluster, cluster.block_index().x + 100u * cluster.dim_blocks().x};
    for (int i = 0; i < 16; ++i) o[264 + i] = s[i];
  }
  cluster.sync();   // no CTA exits while another may still access its shared memory
}
