// Looks racy, is correct. Clusters of 2 with a leader-only producer (sm_90a): a 2-stage ring of 256-word tiles,
// 6 tiles per cluster. Rank 0's producer lane waits until its empty[s] completed, announces the tile's bytes on
// its own full[s] and multicasts the whole tile into both CTAs (ctaMask 0b11). Rank 1's producer lane never
// copies: it only announces the bytes on ITS full[s] (arrive.expect_tx), each time after the previous phase of
// full[s] completed in its CTA. All 4 consumer warps of the cluster release a stage by a remote arrive on the
// LEADER's empty[s] (count 4): the leader refills stage s in both CTAs only after both CTAs consumed it.
// out[(b*6 + k)*64 + c] = tile_k[c] + tile_k[c+64] + tile_k[c+128] + tile_k[c+192] (mod 2^32).
#include "../common.cuh"

constexpr int S = 2, TILE = 256, NT = 6;

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(96)
leader_multicast(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
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
        if (r == 0) {
          mbar_wait(&empty[s], ph ^ 1);
          mbar_arrive_expect_tx(&full[s], TILE * 4);
          bulk_g2s_multicast(ring[s], src + k * TILE, TILE * 4, &full[s], 0x3);
        } else {
          if (k >= S) mbar_wait(&full[s], ph ^ 1);    // the previous phase of full[s] completed here
          mbar_arrive_expect_tx(&full[s], TILE * 4);
        }
      }
    }
  } else {
    const int c = t - 32;
    for (int k = 0; k < NT; ++k) {
      const int s = k % S;
      const uint32_t ph = (k / S) & 1;
      mbar_wait(&full[s], ph);
      out[(blockIdx.x * NT + k) * 64 + c] = ring[s][c] + ring[s][c + 64] + ring[s][c + 128] + ring[s][c + 192];
      __syncwarp();
      if (lane == 0) mbar_arrive_remote(&empty[s], 0);
    }
  }
  cluster_sync();
}
