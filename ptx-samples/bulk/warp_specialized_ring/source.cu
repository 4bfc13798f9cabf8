// CUTLASS-style warp-specialised producer/consumer ring over full/empty mbarriers, 4 stages, 10 tiles per
// block (every stage reused): warp 0 lane 0 is the producer: wait empty[s] (parity starting at 1, which a
// fresh barrier reports complete), mbarrier.arrive.expect_tx on full[s], cp.async.bulk global->shared into
// stage s completing on full[s]; at the end it drains (waits until the last tile of every stage is released).
// Warps 1..3 consume: wait full[s] (parity starting at 0), read the stage (own and neighbouring elements),
// __syncwarp, and lane 0 arrives once per warp on empty[s] (init count 3). This is correct, although
// compute-sanitizer's racecheck has been seen to flag this pattern.
#include <cstdint>

constexpr int T = 128;       // threads per block: warp 0 producer, warps 1..3 consumers
constexpr int STAGES = 4;
constexpr int TILE = 384;    // uint32 per tile (1536 bytes)
constexpr int NC = 96;       // consumer threads

__device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void wait_parity(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

extern "C" __global__ void __launch_bounds__(T) warp_specialized_ring(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                                                      unsigned* __restrict__ sums, int ntiles) {
  __shared__ alignas(128) unsigned ring[STAGES][TILE];
  __shared__ alignas(8) uint64_t full[STAGES];
  __shared__ alignas(8) uint64_t empty[STAGES];
  const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
  const unsigned b = blockIdx.x;
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
      for (int k = 0; k < ntiles + STAGES; ++k) {
        const int s = k % STAGES;
        const uint32_t r = k / STAGES;
        wait_parity(sa(&empty[s]), (r & 1) ^ 1);          // consumers released this stage's previous tile
        if (k >= ntiles) continue;                         // drain
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sa(&full[s])), "r"(TILE * 4) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(sa(ring[s])), "l"(in + ((size_t)b * ntiles + k) * TILE), "r"(TILE * 4), "r"(sa(&full[s])) : "memory");
      }
    }
  } else {
    const int c = t - 32;
    for (int k = 0; k < ntiles; ++k) {
      const int s = k % STAGES;
      const uint32_t r = k / STAGES;
      wait_parity(sa(&full[s]), r & 1);
      unsigned part = 0;
      for (int m = 0; m < TILE / NC; ++m) {
        const int j = c + NC * m;
        const unsigned v = ring[s][j] * 3u + (ring[s][(j + 1) % TILE] ^ (unsigned)k);
        out[((size_t)b * ntiles + k) * TILE + j] = v;
        part += v >> 4;
      }
      part = __reduce_add_sync(0xFFFFFFFFu, part);
      __syncwarp();                                        // the whole warp is done reading stage s
      if (lane == 0) {
        sums[((size_t)b * ntiles + k) * 3 + (warp - 1)] = part;
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sa(&empty[s])) : "memory");
      }
    }
  }
}
