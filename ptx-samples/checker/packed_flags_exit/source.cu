// Looks racy, is correct. Per-warp results packed into shared arrays of bools and shorts, so that several
// warps write different BYTES of the same 4-byte word (any[0..3] share a word, cnt[0..1] too); and warps 6-7
// return before the __syncthreads that publishes the results. Disjoint bytes of one word do not conflict, and
// a barrier waiting only for threads that exited completes. Thread 0 then combines warps 0-5:
// out[3b] = sum of in over the first 192 threads, out[3b+1] = how many of them are multiples of 3,
// out[3b+2] = how many of the 6 warps saw at least one multiple of 3.
#include "../common.cuh"

extern "C" __global__ void __launch_bounds__(256) packed_flags_exit(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ bool any[8];
  __shared__ short cnt[8];
  __shared__ int partial[8];
  const int t = threadIdx.x, w = t / 32, lane = t % 32, b = blockIdx.x;
  const int v = in[b * 256 + t];
  if (w >= 6) return;                                   // warps 6 and 7 leave before the barrier
  const unsigned m = __ballot_sync(0xffffffffu, v % 3 == 0);
  int s = v;
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) { any[w] = m != 0; cnt[w] = (short)__popc(m); partial[w] = s; }
  __syncthreads();
  if (t == 0) {
    int tot = 0, c = 0, nany = 0;
    for (int i = 0; i < 6; ++i) { tot += partial[i]; c += cnt[i]; nany += any[i]; }
    out[3 * b] = tot;
    out[3 * b + 1] = c;
    out[3 * b + 2] = nany;
  }
}
