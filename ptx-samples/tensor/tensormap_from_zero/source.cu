// Tensor maps built from nothing on the device, as Triton 3.9's tl.make_tensor_descriptor builds
// them: 32 threads zero 128 bytes of shared memory, thread 0 sets fields with tensormap.replace,
// warp 0 copies the map to global memory with tensormap.cp_fenceproxy (release to the tensor-map
// proxy) and thread 0 acquires it (fence.proxy.tensormap::generic.acquire); after bar.sync a
// thread of warp 1 loads one box through it (the acquire is another warp's of the same CTA, as in
// Triton's code). CTA c is case c; each case leaves some fields at zero to see what zero means:
//   0  every field Triton sets (address, rank, global_dim 0/1, global_stride, box_dim 0/1,
//      element_stride 0/1, elemtype f32, swizzle none); a box across the tensor's corner
//   1  element_stride, swizzle and fill left zero
//   2  rank left zero (a rank-1 map), 1d copy across the end
//   3  elemtype left zero (u8 elements)
//   4  box_dim 1 left zero
//   5  global_dim 1 left zero (rows beyond the first read as fill)
//   6  f16 with the 128-byte swizzle (Triton's f16 descriptors)
//   7  as 1 with fill_mode NaN
// The wait is bounded (status 2 when the box never lands), so a wrong expectation cannot hang the
// GPU. The box area (4 KiB, 0xDEADBEEF before) is dumped. Written for ptxrun.
#include <cstdint>

__device__ __forceinline__ uint32_t s32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

constexpr int CASES = 8;
__constant__ uint32_t kExpect[CASES] = {512, 512, 128, 256, 64, 512, 1024, 512};
__constant__ int kC0[CASES] = {56, 56, 48, 224, 8, 0, 64, 56};
__constant__ int kC1[CASES] = {28, 28, 0, 30, 5, 0, 4, 28};

#define REPLACE(field, args, ...) \
  asm volatile("tensormap.replace.tile." field ".shared::cta.b1024." args ";" :: __VA_ARGS__ : "memory")

__device__ void set_fields(int which, uint32_t a, const float* src) {
  const bool f16 = which == 6, u8 = which == 3;
  REPLACE("global_address", "b64 [%0], %1", "r"(a), "l"(src));
  if (which != 2) REPLACE("rank", "b32 [%0], 1", "r"(a));
  REPLACE("global_dim", "b32 [%0], 0, %1", "r"(a), "r"(f16 ? 128 : u8 ? 256 : 64));
  if (which != 2 && which != 5) REPLACE("global_dim", "b32 [%0], 1, %1", "r"(a), "r"(32));
  if (which != 2) REPLACE("global_stride", "b64 [%0], 0, %1", "r"(a), "l"(256ull));
  REPLACE("box_dim", "b32 [%0], 0, %1", "r"(a), "r"(which == 2 ? 32 : u8 || f16 ? 64 : 16));
  if (which != 2 && which != 4) REPLACE("box_dim", "b32 [%0], 1, %1", "r"(a), "r"(u8 ? 4 : 8));
  if (which == 0 || which == 6) {
    REPLACE("element_stride", "b32 [%0], 0, %1", "r"(a), "r"(1));
    REPLACE("element_stride", "b32 [%0], 1, %1", "r"(a), "r"(1));
  }
  if (f16) REPLACE("elemtype", "b32 [%0], 6", "r"(a));
  else if (!u8) REPLACE("elemtype", "b32 [%0], 7", "r"(a));
  if (which == 0) REPLACE("swizzle_mode", "b32 [%0], 0", "r"(a));
  if (f16) REPLACE("swizzle_mode", "b32 [%0], 3", "r"(a));
  if (which == 7) REPLACE("fill_mode", "b32 [%0], 1", "r"(a));
}

extern "C" __global__ void tensormap_from_zero(const float* src, uint64_t* slots, uint32_t* dump, int* status) {
  __shared__ __align__(1024) unsigned char box[4096];
  __shared__ __align__(128) uint32_t tm[32];
  __shared__ __align__(8) uint64_t bar;
  const int which = blockIdx.x;
  uint64_t* slot = slots + which * 16;
  if (threadIdx.x < 32) tm[threadIdx.x] = 0;
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) reinterpret_cast<uint32_t*>(box)[i] = 0xDEADBEEFu;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // the TMA write comes after these stores
  __syncthreads();
  if (threadIdx.x == 0) set_fields(which, s32(tm), src);
  __syncwarp();
  if (threadIdx.x < 32) {
    asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                 :: "l"(slot), "r"(s32(tm)) : "memory");
  }
  if (threadIdx.x == 0) asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(slot) : "memory");
  __syncthreads();
  if (threadIdx.x == 32) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(s32(&bar)), "r"(kExpect[which]) : "memory");
    if (which == 2) {
      asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                   :: "r"(s32(box)), "l"(slot), "r"(kC0[which]), "r"(s32(&bar)) : "memory");
    } else {
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   :: "r"(s32(box)), "l"(slot), "r"(kC0[which]), "r"(kC1[which]), "r"(s32(&bar)) : "memory");
    }
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
