// BUGGY twin of ptx-samples/tensor/tensormap_replace: the map each CTA edits and copies to global
// memory with tensormap.cp_fenceproxy (a release to the tensor-map proxy) is used by the tensor copy
// with no fence.proxy.tensormap::generic.acquire of it, so the copy may read the old map (CUTLASS's
// tma_descriptor_fence_acquire is missing). Written for ptxrun.
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ uint32_t s32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

constexpr int CASES = 13;
// Per case: the box bytes to expect and the box coordinates.
__constant__ uint32_t kExpect[CASES] = {512, 512, 512, 512, 512, 256, 256, 256, 256, 512, 512, 512, 512};
__constant__ int kC0[CASES] = {16, 16, 16, 0, 0, 16, 16, 16, 16, 16, 56, 16, 16};
__constant__ int kC1[CASES] = {8, 8, 0, 0, 0, 8, 8, 8, 8, 8, 0, 0, 8};

extern "C" __global__ void tensormap_replace(const __grid_constant__ CUtensorMap tmap, const float* other,
                                             CUtensorMap* slots, uint32_t* dump, int* status) {
  __shared__ __align__(1024) unsigned char box[4096];
  __shared__ __align__(128) CUtensorMap tm;
  __shared__ __align__(8) uint64_t bar;
  const int which = blockIdx.x;
  CUtensorMap* slot = slots + which;
  if (threadIdx.x < 8) {   // 128 bytes, 16 per thread
    reinterpret_cast<uint4*>(&tm)[threadIdx.x] = reinterpret_cast<const uint4*>(&tmap)[threadIdx.x];
  }
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) reinterpret_cast<uint32_t*>(box)[i] = 0xDEADBEEFu;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // the TMA write comes after these stores
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t a = s32(&tm);
    switch (which) {
      case 1: asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" :: "r"(a), "l"(other) : "memory"); break;
      case 2: asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" :: "r"(a), "r"(20) : "memory"); break;
      case 3: asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" :: "r"(a), "r"(4) : "memory"); break;
      case 4: asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;" :: "r"(a), "l"(512ull) : "memory"); break;
      case 5: asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0, %1;" :: "r"(a), "r"(8) : "memory"); break;
      case 6: asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;" :: "r"(a), "r"(4) : "memory"); break;
      case 7: asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 1, %1;" :: "r"(a), "r"(2) : "memory"); break;
      case 8: asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 6;" :: "r"(a) : "memory"); break;
      case 9: asm volatile("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 2;" :: "r"(a) : "memory"); break;
      case 10: asm volatile("tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%0], 1;" :: "r"(a) : "memory"); break;
      case 11: asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" :: "r"(a), "r"(19) : "memory"); break;
      case 12: asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 2;" :: "r"(a) : "memory"); break;
      default: break;
    }
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                 :: "l"(slot), "r"(s32(&tm)) : "memory");
  }
  if (threadIdx.x == 0) {
    // the bug: no fence.proxy.tensormap::generic.acquire of the slot before the copy uses it
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(s32(&bar)), "r"(kExpect[which]) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(s32(box)), "l"(slot), "r"(kC0[which]), "r"(kC1[which]), "r"(s32(&bar)) : "memory");
    uint32_t done = 0;
    for (int i = 0; i < (1 << 22) && !done; ++i) {
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(s32(&bar)) : "memory");
    }
    status[which] = done ? 1 : 2;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) dump[which * 1024 + i] = reinterpret_cast<uint32_t*>(box)[i];
}
