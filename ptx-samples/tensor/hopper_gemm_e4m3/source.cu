// A Hopper warp-specialised GEMM the way CUTLASS's sm90 kernels are built, in plain CUDA with inline
// PTX: C (f32, M x N, row-major) = A (M x K) x B^T with A and B stored K-major (B as N x K), bf16 or,
// with -DELEM_E4M3, e4m3. A CTA of three warpgroups computes a 128 x 128 tile: warpgroup 0 is the
// producer (setmaxnreg.dec 40): one elected thread loads 128 x 128-byte tiles of A and B with TMA
// (cp.async.bulk.tensor.2d, 128B swizzle) into a 3-stage ring guarded by full/empty mbarriers;
// warpgroups 1 and 2 are consumers (setmaxnreg.inc 232): each multiplies its 64 rows of the A tile by
// the B tile with four wgmma.mma_async m64n128 (K-major shared-memory descriptors, 128B swizzle,
// start advanced 32 bytes per step), waits, releases the stage (lane 0 of each consumer warp arrives
// on the empty barrier) and finally stores its 64 f32 accumulators per thread. Written for ptxrun.
//
// Buggy twins (-D...): BUG_NO_FENCE (no wgmma.fence before the wgmma), BUG_EARLY_RELEASE (the stage
// is released before wgmma.wait_group, so TMA may overwrite operands still being read),
// BUG_NO_FINAL_WAIT (the epilogue reads the accumulators of the last k-tile before waiting),
// BUG_HALF_WARP (only half of each consumer warp executes the wgmma).
#include <cuda.h>
#include <stdint.h>

#ifdef ELEM_E4M3
#define WGMMA_SHAPE "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
constexpr int M = 256, N = 256, K = 1024, ELEM_BYTES = 1;
#else
#define WGMMA_SHAPE "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
constexpr int M = 256, N = 256, K = 512, ELEM_BYTES = 2;
#endif
constexpr int BM = 128, BN = 128, TILE_BYTES = 128;  // one 128-byte swizzle row of K per tile row
constexpr int STAGES = 3, BK = TILE_BYTES / ELEM_BYTES, KT = K / BK;
static_assert(M % BM == 0 && N % BN == 0 && K % BK == 0, "whole tiles");

struct __align__(1024) Smem {
  uint8_t a[STAGES][BM * TILE_BYTES];
  uint8_t b[STAGES][BN * TILE_BYTES];
  uint64_t full[STAGES], empty[STAGES];
};

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done) {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(smem_u32(bar)), "r"(parity) : "memory");
  }
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* m, uint64_t* bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               ::"r"(smem_u32(dst)), "l"(m), "r"(c0), "r"(c1), "r"(smem_u32(bar)) : "memory");
}

// K-major, 128B swizzle: 8 rows of 128 bytes per 1024-byte atom (SBO 1024), LBO unused (16).
__device__ __forceinline__ uint64_t desc_k128(const void* p) {
  return (uint64_t)((smem_u32(p) & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

__device__ __forceinline__ void wgmma_step(float (&d)[64], uint64_t da, uint64_t db, int scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t" WGMMA_SHAPE
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1"
#ifndef ELEM_E4M3
      ", 0, 0"
#endif
      ";\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "r"(scale_d));
}

extern "C" __global__ void __launch_bounds__(384, 1)
    hopper_gemm(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, float* C) {
  extern __shared__ __align__(1024) uint8_t raw[];
  Smem& s = *reinterpret_cast<Smem*>(raw);
  const int tid = threadIdx.x, wg = tid / 128, warp = tid / 32, lane = tid % 32;
  if (tid == 0) {
    for (int i = 0; i < STAGES; ++i) {
      mbar_init(&s.full[i], 1);
      mbar_init(&s.empty[i], 8);  // lane 0 of each of the 8 consumer warps
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    if (tid == 0) {
      for (int kt = 0; kt < KT; ++kt) {
        const int st = kt % STAGES, phase = (kt / STAGES) & 1;
        mbar_wait(&s.empty[st], phase ^ 1);
        mbar_expect_tx(&s.full[st], (BM + BN) * TILE_BYTES);
        tma_load_2d(s.a[st], &map_a, &s.full[st], kt * BK, blockIdx.y * BM);
        tma_load_2d(s.b[st], &map_b, &s.full[st], kt * BK, blockIdx.x * BN);
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  const int c = wg - 1;  // consumer: rows 64c .. 64c + 63 of the tile
  float d[64] = {};
  for (int kt = 0; kt < KT; ++kt) {
    const int st = kt % STAGES, phase = (kt / STAGES) & 1;
    mbar_wait(&s.full[st], phase);
#ifndef BUG_NO_FENCE
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
#ifdef BUG_HALF_WARP
    if (lane < 16)
#endif
      for (int k = 0; k < 4; ++k)
        wgmma_step(d, desc_k128(s.a[st] + c * 64 * TILE_BYTES + 32 * k), desc_k128(s.b[st] + 32 * k),
                   kt > 0 || k > 0);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#ifdef BUG_EARLY_RELEASE
    if (lane == 0) mbar_arrive(&s.empty[st]);
#endif
#ifdef BUG_NO_FINAL_WAIT
    if (kt + 1 < KT)
#endif
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#ifndef BUG_EARLY_RELEASE
    if (lane == 0) mbar_arrive(&s.empty[st]);
#endif
  }
  const int row0 = blockIdx.y * BM + c * 64 + (warp % 4) * 16 + lane / 4, col0 = blockIdx.x * BN + 2 * (lane % 4);
  for (int i = 0; i < 64; ++i)
    C[(row0 + 8 * ((i / 2) % 2)) * N + col0 + 8 * (i / 4) + i % 2] = d[i];
}
