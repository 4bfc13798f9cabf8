// Tensor maps of the f32 flavours (CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, TFLOAT32, TFLOAT32_FTZ) and
// tensormap.replace .rank / .elemtype, one case per CTA (written for ptxrun; inputs are adversarial
// f32 bit patterns: NaNs with payloads, subnormals, values halfway between tf32 neighbours):
//  0, 1  load a box of X through the tf32 map `tf` (TMA rounds each f32 to tf32, NaN -> 0x7fffe000)
//  2     load a partly out-of-bounds box through `tfz` (tf32_ftz, NaN fill: the fill is not rounded)
//  3     add-reduce 32 rows of X into Y through `fz` (f32_ftz: subnormal operands flush)
//  4     add-reduce X into Z through `tz` (tf32: a plain f32 add, canonical NaN)
//  5..9  copy the plain f32 map `pl` to shared memory, tensormap.replace, cp_fenceproxy, acquire,
//        load: elemtype 11 (.tf32), elemtype 8 (.f32.ftz), rank 0 (one dimension), rank 1 (same),
//        elemtype 9 (.f64) with box_dim 1 = 8. The PTX codes of .elemtype are not CUtensorMapDataType's.
// Loads wait on the mbarrier with a bounded loop (status 2 if the bytes never come).
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ uint32_t s32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

constexpr int CASES = 10;
__constant__ uint32_t kExpect[CASES] = {4096, 4096, 4096, 0, 0, 4096, 4096, 128, 4096, 2048};
__constant__ int kC0[CASES] = {0, 0, 16, 0, 0, 0, 0, 0, 0, 0};
__constant__ int kC1[CASES] = {0, 32, 48, 0, 32, 0, 32, 0, 32, 0};

extern "C" __global__ void tensormap_tf32(const __grid_constant__ CUtensorMap tf, const __grid_constant__ CUtensorMap tfz,
                                          const __grid_constant__ CUtensorMap fz, const __grid_constant__ CUtensorMap tz,
                                          const __grid_constant__ CUtensorMap pl, const uint32_t* xs, CUtensorMap* slots,
                                          uint32_t* dump, int* status) {
  __shared__ __align__(1024) uint32_t box[1024];
  __shared__ __align__(128) CUtensorMap tm;
  __shared__ __align__(8) uint64_t bar;
  const int which = blockIdx.x;
  const bool red = which == 3 || which == 4;
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) box[i] = red ? xs[i] : 0xDEADBEEFu;
  if (threadIdx.x < 8) reinterpret_cast<uint4*>(&tm)[threadIdx.x] = reinterpret_cast<const uint4*>(&pl)[threadIdx.x];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const void* map = which < 2 ? (const void*)&tf : which == 2 ? (const void*)&tfz : which == 3 ? (const void*)&fz
                    : which == 4 ? (const void*)&tz : (const void*)(slots + which);
  if (which >= 5) {
    if (threadIdx.x == 0) {
      uint32_t a = s32(&tm);
      switch (which) {
        case 5: asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 11;" :: "r"(a) : "memory"); break;
        case 6: asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 8;" :: "r"(a) : "memory"); break;
        case 7: asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], %1;" :: "r"(a), "r"(0) : "memory"); break;
        case 8: asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 1;" :: "r"(a) : "memory"); break;
        default:
          asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 9;" :: "r"(a) : "memory");
          asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;" :: "r"(a), "r"(8) : "memory");
          break;
      }
    }
    __syncthreads();
    if (threadIdx.x < 32) {
      asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                   :: "l"(slots + which), "r"(s32(&tm)) : "memory");
    }
  }
  if (threadIdx.x == 0) {
    if (which >= 5) asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(slots + which) : "memory");
    if (red) {
      asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
                   :: "l"(map), "r"(kC0[which]), "r"(kC1[which]), "r"(s32(box)) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
      status[which] = 1;
    } else {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s32(&bar)) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(s32(&bar)), "r"(kExpect[which]) : "memory");
      if (which == 7) {
        asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                     :: "r"(s32(box)), "l"(map), "r"(kC0[which]), "r"(s32(&bar)) : "memory");
      } else {
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(s32(box)), "l"(map), "r"(kC0[which]), "r"(kC1[which]), "r"(s32(&bar)) : "memory");
      }
      uint32_t done = 0;
      for (int i = 0; i < (1 << 22) && !done; ++i) {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(s32(&bar)) : "memory");
      }
      status[which] = done ? 1 : 2;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) dump[which * 1024 + i] = red ? 0u : box[i];
}
