// Buggy twin of checker/warp_reduce_syncwarp: the same warp tree reduction with the __syncwarp()
// calls removed, the pre-Volta "warp-synchronous" idiom. Lanes of a warp are independent threads
// since sm_70: lane 0 may read s[w][16] before or after lane 16 wrote its partial sum there.
// ptxrun reports data-race between lanes of the same warp.
constexpr int T = 128;

extern "C" __global__ void __launch_bounds__(T) warp_reduce_nosync(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int s[T / 32][64];
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int* row = in + ((size_t)blockIdx.x * (T / 32) + w) * 64;
  s[w][lane] = row[lane];
  s[w][lane + 32] = row[lane + 32];
  int v = s[w][lane] + s[w][lane + 32];
  s[w][lane] = v;
  for (int d = 16; d > 0; d /= 2) {
    if (lane < d) v += s[w][lane + d];
    if (lane < d) s[w][lane] = v;
  }
  if (lane == 0) out[blockIdx.x * (T / 32) + w] = s[w][0];
}
