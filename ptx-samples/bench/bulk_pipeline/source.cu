// Benchmark: a warp-specialised bulk-copy pipeline, as CUTLASS's TMA kernels are built. Per CTA,
// warp 0 lane 0 produces: for each of its 64 tiles (1024 floats, 4 KB) it waits on the stage's
// empty mbarrier, arms the full mbarrier with expect_tx and issues cp.async.bulk global->shared
// completing on it (4-stage ring). Warps 1..3 consume: wait on full[s], evaluate a degree-8
// polynomial (Horner, fmaf) at every element of the stage, store the results to global, and
// release the stage (one arrival per warp on empty[s]). grid 16, block 128: 1 M elements.
#include <cstdint>

constexpr int STAGES = 4;
constexpr int TILE = 1024;   // floats per tile
constexpr int TILES = 64;    // tiles per CTA
constexpr int NC = 96;       // consumer threads

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void wait_parity(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

__device__ __forceinline__ float poly(float x) {
  const float c[9] = {0.5f, -1.25f, 0.75f, 2.0f, -0.375f, 1.5f, -0.625f, 0.125f, 1.0f};
  float v = c[0];
#pragma unroll
  for (int i = 1; i < 9; ++i) v = fmaf(v, x, c[i]);
  return v;
}

extern "C" __global__ void __launch_bounds__(128) bulk_pipeline(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ alignas(128) float ring[STAGES][TILE];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
  const size_t base = (size_t)blockIdx.x * TILES * TILE;
  if (t == 0) {
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sa(&full[s])) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 3;" :: "r"(sa(&empty[s])) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < TILES; ++k) {
        const int s = k % STAGES;
        wait_parity(sa(&empty[s]), ((k / STAGES) & 1) ^ 1);   // a fresh barrier's previous phase is complete
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sa(&full[s])), "r"(TILE * 4) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(sa(ring[s])), "l"(in + base + (size_t)k * TILE), "r"(TILE * 4), "r"(sa(&full[s])) : "memory");
      }
    }
  } else {
    const int c = t - 32;
    for (int k = 0; k < TILES; ++k) {
      const int s = k % STAGES;
      wait_parity(sa(&full[s]), (k / STAGES) & 1);
      for (int j = c; j < TILE; j += NC) out[base + (size_t)k * TILE + j] = poly(ring[s][j]);
      __syncwarp();
      if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sa(&empty[s])) : "memory");
    }
  }
}
