// TMA tile loads (cp.async.bulk.tensor.{1..5}d global -> shared::cluster, tile mode, mbarrier completion)
// of nine tensor maps, each box dumped raw from shared memory to global, so that the box layout, the
// swizzle pattern and the out-of-bound fill are all visible in the output bytes.
//
// Maps (kernel parameters, const __grid_constant__ CUtensorMap, in this order):
//   m1d   f32 [100]                    box [32]                 1d, coordinates partly / wholly out of bounds
//   m2d   f32 [50,30] stride 256 B     box [16,8]               2d, no swizzle, padded rows
//   m128  f16 [100,40] stride 208 B    box [64,16]  128B swizzle (two 1024-byte swizzle atoms)
//   m64   f32 [50,30] stride 256 B     box [16,8]   64B swizzle (same buffer as m2d)
//   m32   u32 [20,20]                  box [8,8]    32B swizzle
//   m3d   u8  [37,9,6] strides 48,432  box [32,4,4]             3d, padded rows and planes
//   m5d   f32 [8,3,4,2,3]              box [4,2,2,2,2]          5d
//   mes   u32 [20,20]                  box [8,8], element strides [1,2]: 4 rows (c1, c1+2, c1+4, c1+6)
//   mnan  f32 [50,30] stride 256 B     box [8,8], oob fill NaN (NAN_REQUEST_ZERO_FMA)
// Every box lands in its own 1024-byte-aligned slot of one __align__(1024) shared array; each map has its
// own mbarrier (arrive.expect_tx of the full box bytes, out-of-bound elements included, before the copy).
// The dump of CTA b (b = blockIdx.y * 4 + blockIdx.x) is the concatenation of the nine boxes' bytes.
// Every dim-0 coordinate is a multiple of 16 bytes (negative ones too): an H100 raises an illegal instruction
// for a box whose start in dim 0 is not 16-byte aligned (measured, driver 580.159.04); negative coordinates
// and partly or wholly out-of-bound boxes are fine for loads. The NaN fill measured there is 0x7FF77FF7.
#include <cuda.h>   // CUtensorMap
#include <cstdint>

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(smem_u32(bar)), "r"(parity) : "memory");
  }
}

__device__ __forceinline__ void tma_load_1d(void* dst, const CUtensorMap* m, uint64_t* bar, int c0) {
  asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
               :: "r"(smem_u32(dst)), "l"(m), "r"(c0), "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* m, uint64_t* bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem_u32(dst)), "l"(m), "r"(c0), "r"(c1), "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* m, uint64_t* bar, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
               :: "r"(smem_u32(dst)), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void tma_load_5d(void* dst, const CUtensorMap* m, uint64_t* bar, int c0, int c1, int c2, int c3, int c4) {
  asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
               :: "r"(smem_u32(dst)), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(smem_u32(bar)) : "memory");
}

constexpr int NMAPS = 9;
// shared-memory slot (byte offset, 1024-aligned) and box bytes of each map, in parameter order
__constant__ uint32_t kSlot[NMAPS] = {0, 1024, 2048, 4096, 5120, 6144, 7168, 8192, 9216};
__constant__ uint32_t kBytes[NMAPS] = {128, 512, 2048, 512, 256, 512, 256, 128, 256};
constexpr uint32_t DUMP_PER_CTA = 128 + 512 + 2048 + 512 + 256 + 512 + 256 + 128 + 256;   // 4608

extern "C" __global__ void tile_load_dump(const __grid_constant__ CUtensorMap m1d, const __grid_constant__ CUtensorMap m2d,
                                          const __grid_constant__ CUtensorMap m128, const __grid_constant__ CUtensorMap m64,
                                          const __grid_constant__ CUtensorMap m32, const __grid_constant__ CUtensorMap m3d,
                                          const __grid_constant__ CUtensorMap m5d, const __grid_constant__ CUtensorMap mes,
                                          const __grid_constant__ CUtensorMap mnan, uint32_t* __restrict__ dump) {
  __shared__ __align__(1024) unsigned char smem[10240];
  __shared__ __align__(8) uint64_t bars[NMAPS];
  const int b = blockIdx.y * 4 + blockIdx.x;   // 0..7
  const int bx = b % 4, by = b / 4;

  if (threadIdx.x == 0) {
    for (int k = 0; k < NMAPS; ++k) mbar_init(&bars[k], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");   // inits visible to the async proxy
  }
  __syncthreads();

  if (threadIdx.x == 0) {
    asm volatile("prefetch.tensormap [%0];" :: "l"(&m128) : "memory");
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
                 :: "l"(&m2d), "r"(bx * 16 - 8), "r"(by * 26 - 3) : "memory");
    asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];"
                 :: "l"(&m3d), "r"((b % 2) * 32 - 16), "r"(((b / 2) % 2) * 6 - 1), "r"(by * 4 - 1) : "memory");
    for (int k = 0; k < NMAPS; ++k) mbar_arrive_expect_tx(&bars[k], kBytes[k]);
    // 1d: partly out of bounds on both sides, wholly out of bounds below 0 (b = 6) and at the end (b = 7)
    tma_load_1d(smem + kSlot[0], &m1d, &bars[0], b == 6 ? -32 : b == 7 ? 100 : b * 12 - 20);
    tma_load_2d(smem + kSlot[1], &m2d, &bars[1], bx * 16 - 8, by * 26 - 3);
    tma_load_2d(smem + kSlot[2], &m128, &bars[2], bx * 24 - 16, by * 30 - 4);
    tma_load_2d(smem + kSlot[3], &m64, &bars[3], b * 8 - 8, b * 3 - 2);
    tma_load_2d(smem + kSlot[4], &m32, &bars[4], (bx * 7 - 4) & ~3, by * 15 - 1);
    tma_load_3d(smem + kSlot[5], &m3d, &bars[5], (b % 2) * 32 - 16, ((b / 2) % 2) * 6 - 1, by * 4 - 1);
    tma_load_5d(smem + kSlot[6], &m5d, &bars[6], (b % 3 - 1) * 4, ((b / 2) % 2) * 2 - 1, b % 3 - 1, by, bx - 1);
    tma_load_2d(smem + kSlot[7], &mes, &bars[7], bx * 4 - 4, by * 17 - 3);
    tma_load_2d(smem + kSlot[8], &mnan, &bars[8], bx * 16 - 4, by * 27 - 2);
  }

  uint32_t* out = dump + b * (DUMP_PER_CTA / 4);
  uint32_t off = 0;
  for (int k = 0; k < NMAPS; ++k) {
    mbar_wait(&bars[k], 0);
    const uint32_t* src = reinterpret_cast<const uint32_t*>(smem + kSlot[k]);
    for (uint32_t i = threadIdx.x; i < kBytes[k] / 4; i += blockDim.x) out[off / 4 + i] = src[i];
    off += kBytes[k];
  }
}
