extern "C" __global__ void warp_ops(const int* __restrict__ in, int* __restrict__ out, unsigned* __restrict__ masks) {
  const unsigned FULL = 0xffffffffu;
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[tid];

  // inclusive scan with shfl_up
  int scan = v;
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(FULL, scan, d);
    if (lane >= d) scan += t;
  }
  // butterfly max with shfl_xor, tree sum with shfl_down, broadcast with shfl
  int mx = v;
  for (int d = 16; d > 0; d >>= 1) mx = max(mx, __shfl_xor_sync(FULL, mx, d));
  int sum = v;
  for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(FULL, sum, d);
  sum = __shfl_sync(FULL, sum, 0);
  int seg = __shfl_sync(FULL, v, 0, 8);       // width-8 segments
  float f = __shfl_xor_sync(FULL, (float)v * 0.5f, 1);

  unsigned ballot = __ballot_sync(FULL, v > 0);
  int any = __any_sync(FULL, v == 42), all = __all_sync(FULL, v >= 0);
  unsigned peers = __match_any_sync(FULL, v & 7);
  int pred;
  unsigned same = __match_all_sync(FULL, v >> 8, &pred);
  unsigned rsum = __reduce_add_sync(FULL, (unsigned)v);
  int rmin = __reduce_min_sync(FULL, v);
  unsigned ror = __reduce_or_sync(FULL, (unsigned)v);

  int r;
  if (v & 1) {                       // divergent branch
    unsigned act = __activemask();
    r = __popc(act) + __shfl_sync(act, v, __ffs(act) - 1);
    __syncwarp(act);
  } else {
    r = -v;
    while (r < 100) r = r * 3 + lane;  // data-dependent trip count
  }
  __syncwarp();
  out[4 * tid + 0] = scan + mx + sum + seg + (int)f;
  out[4 * tid + 1] = any + 2 * all + pred + r;
  out[4 * tid + 2] = (int)rsum + rmin + (int)ror;
  masks[2 * tid] = ballot ^ peers;
  masks[2 * tid + 1] = same;
}
