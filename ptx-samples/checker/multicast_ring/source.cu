// Looks racy, is correct. CUTLASS-style multicast TMA pipeline in clusters of 2 (sm_90a): a 3-stage ring of
// 512-word tiles, 7 tiles per cluster. Each CTA's producer (warp 0, lane 0) loads HALF of every tile and
// multicasts it into the same stage of both CTAs (ctaMask 0b11), completing tx on each CTA's full[s]; each
// CTA's own producer announces the whole tile (arrive.expect_tx of 2048 bytes) on its own full[s]. The
// consumers (warps 1-2 of each CTA) wait on full[s], read the stage, and release it by arriving on empty[s] of
// BOTH CTAs (remote arrive, release at cluster scope; empty count 4 = 2 warps x 2 CTAs), so a producer refills
// stage s, in its own CTA and in its peer, only after all 4 consumer warps of the cluster are done with it.
// Init is the CUTLASS pattern: mbarrier.init, fence.mbarrier_init.release.cluster, then a cluster barrier whose
// arrive is relaxed. A final cluster barrier keeps every CTA alive while its peer may still arrive on it.
// out[(b*7 + k)*64 + c] = sum over j = c, c+64, .., c+448 of tile_k[j] ^ tile_k[(j+7) % 512] (mod 2^32).
#include "../common.cuh"

constexpr int S = 3, TILE = 512, HALF = TILE / 2, NT = 7;

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(96)
multicast_ring(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
  __shared__ alignas(128) unsigned ring[S][TILE];
  __shared__ alignas(8) uint64_t full[S], empty[S];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const uint32_t r = cluster_ctarank();
  const unsigned* src = in + (size_t)(blockIdx.x / 2) * NT * TILE;
  if (t == 0) {
    for (int s = 0; s < S; ++s) { mbar_init(&full[s], 1); mbar_init(&empty[s], 4); }
    fence_mbarrier_init();
  }
  cluster_sync_relaxed();
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < NT; ++k) {
        const int s = k % S;
        const uint32_t ph = (k / S) & 1;
        mbar_wait(&empty[s], ph ^ 1);                  // a fresh barrier reports parity 1 complete
        mbar_arrive_expect_tx(&full[s], TILE * 4);     // both halves land here
        bulk_g2s_multicast(&ring[s][r * HALF], src + k * TILE + r * HALF, HALF * 4, &full[s], 0x3);
      }
    }
  } else {
    const int c = t - 32;
    for (int k = 0; k < NT; ++k) {
      const int s = k % S;
      const uint32_t ph = (k / S) & 1;
      mbar_wait(&full[s], ph);
      unsigned acc = 0;
      for (int j = c; j < TILE; j += 64) acc += ring[s][j] ^ ring[s][(j + 7) % TILE];
      out[(blockIdx.x * NT + k) * 64 + c] = acc;
      __syncwarp();
      if (lane == 0) { mbar_arrive_remote(&empty[s], 0); mbar_arrive_remote(&empty[s], 1); }
    }
  }
  cluster_sync();
}
