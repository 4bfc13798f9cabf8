// A warp's tree reduction in shared memory, written as the CUDA C++ Programming Guide writes it
// for independent thread scheduling (sm_70 on): every step reads its partner's slot, then
// __syncwarp(), then writes its own slot, then __syncwarp(). Correct twin of
// hazards/warp_reduce_nosync. Each CTA sums 32 rows of 64 values (one warp per row pair).
constexpr int T = 128;

extern "C" __global__ void __launch_bounds__(T) warp_reduce_syncwarp(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int s[T / 32][64];
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int* row = in + ((size_t)blockIdx.x * (T / 32) + w) * 64;
  s[w][lane] = row[lane];
  s[w][lane + 32] = row[lane + 32];
  __syncwarp();
  int v = s[w][lane] + s[w][lane + 32];
  __syncwarp();
  s[w][lane] = v;
  __syncwarp();
  for (int d = 16; d > 0; d /= 2) {
    if (lane < d) v += s[w][lane + d];
    __syncwarp();
    if (lane < d) s[w][lane] = v;
    __syncwarp();
  }
  if (lane == 0) out[blockIdx.x * (T / 32) + w] = s[w][0];
}
