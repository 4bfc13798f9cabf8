// Bulk asynchronous reductions from shared into global memory: every block reduces its shared arrays into the
// SAME global arrays with cp.reduce.async.bulk.global.shared::cta.bulk_group.<op>.<type>, for every op/type
// pair PTX has (add u32/s32/u64/f32/f64, add.noftz f16/bf16, min/max u32/s32/u64/s64/f16/bf16, inc/dec u32,
// and/or/xor b32/b64), some with .L2::cache_hint, some split in two. Each element's reduction is atomic; the
// data is chosen so the final value does not depend on the order in which blocks' reductions land (integer
// ops commute; float addends are small integers or multiples of powers of two so every partial sum is exact;
// no zeros or NaNs in the float min/max data; inc/dec bounds are the same in every block).
#include <cstdint>

constexpr int T = 128;       // threads per block
constexpr int N = 128;       // elements per segment
constexpr int N32 = 12, N64 = 9, N16 = 6;   // segments

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

#define RED(OPTYPE, DST, SRC, BYTES) \
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group." OPTYPE " [%0], [%1], %2;" \
               :: "l"(DST), "r"(sa(SRC)), "r"((uint32_t)(BYTES)) : "memory")
#define RED_HINT(OPTYPE, DST, SRC, BYTES, POL) \
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.L2::cache_hint." OPTYPE " [%0], [%1], %2, %3;" \
               :: "l"(DST), "r"(sa(SRC)), "r"((uint32_t)(BYTES)), "l"(POL) : "memory")

extern "C" __global__ void __launch_bounds__(T) bulk_reduce(const unsigned* __restrict__ src32, const unsigned long long* __restrict__ src64,
                                                            const unsigned short* __restrict__ src16, unsigned* g32,
                                                            unsigned long long* g64, unsigned short* g16) {
  __shared__ alignas(128) unsigned s32[N32 * N];
  __shared__ alignas(128) unsigned long long s64[N64 * N];
  __shared__ alignas(128) unsigned short s16[N16 * N];
  const int t = threadIdx.x;
  const unsigned b = blockIdx.x;
  for (int j = t; j < N32 * N; j += T) s32[j] = src32[(size_t)b * N32 * N + j];
  for (int j = t; j < N64 * N; j += T) s64[j] = src64[(size_t)b * N64 * N + j];
  for (int j = t; j < N16 * N; j += T) s16[j] = src16[(size_t)b * N16 * N + j];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // generic writes -> visible to the bulk reads
  __syncthreads();

  if (t == 0) {
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    // 32-bit segments
    RED("add.u32", g32 + 0 * N, s32 + 0 * N, N * 2);                   // split in two halves
    RED_HINT("add.u32", g32 + 0 * N + N / 2, s32 + 0 * N + N / 2, N * 2, pol);
    RED("add.s32", g32 + 1 * N, s32 + 1 * N, N * 4);
    RED("min.u32", g32 + 2 * N, s32 + 2 * N, N * 4);
    RED_HINT("max.u32", g32 + 3 * N, s32 + 3 * N, N * 4, pol);
    RED("min.s32", g32 + 4 * N, s32 + 4 * N, N * 4);
    RED("max.s32", g32 + 5 * N, s32 + 5 * N, N * 4);
    RED("inc.u32", g32 + 6 * N, s32 + 6 * N, N * 4);
    RED("dec.u32", g32 + 7 * N, s32 + 7 * N, N * 4);
    RED("and.b32", g32 + 8 * N, s32 + 8 * N, N * 4);
    RED_HINT("or.b32", g32 + 9 * N, s32 + 9 * N, N * 4, pol);
    RED("xor.b32", g32 + 10 * N, s32 + 10 * N, N * 4);
    RED("add.f32", g32 + 11 * N, s32 + 11 * N, N * 4);
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    // 64-bit segments
    RED("add.u64", g64 + 0 * N, s64 + 0 * N, N * 8);
    RED("min.u64", g64 + 1 * N, s64 + 1 * N, N * 8);
    RED("max.u64", g64 + 2 * N, s64 + 2 * N, N * 8);
    RED_HINT("min.s64", g64 + 3 * N, s64 + 3 * N, N * 8, pol);
    RED("max.s64", g64 + 4 * N, s64 + 4 * N, N * 8);
    RED("and.b64", g64 + 5 * N, s64 + 5 * N, N * 8);
    RED("or.b64", g64 + 6 * N, s64 + 6 * N, N * 8);
    RED("xor.b64", g64 + 7 * N, s64 + 7 * N, N * 4);                   // split in two halves
    RED("xor.b64", g64 + 7 * N + N / 2, s64 + 7 * N + N / 2, N * 4);
    RED_HINT("add.f64", g64 + 8 * N, s64 + 8 * N, N * 8, pol);
    // 16-bit segments
    RED("add.noftz.f16", g16 + 0 * N, s16 + 0 * N, N * 2);
    RED_HINT("add.noftz.bf16", g16 + 1 * N, s16 + 1 * N, N * 2, pol);
    RED("min.f16", g16 + 2 * N, s16 + 2 * N, N * 2);
    RED("max.f16", g16 + 3 * N, s16 + 3 * N, N * 2);
    RED("min.bf16", g16 + 4 * N, s16 + 4 * N, N * 2);
    RED("max.bf16", g16 + 5 * N, s16 + 5 * N, N * 2);
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    // inc once more: applying the same wrap-increment twice per block still commutes across blocks
    RED_HINT("inc.u32", g32 + 6 * N, s32 + 6 * N, N * 4, pol);
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");   // the shared sources may be released
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  __syncthreads();
}
