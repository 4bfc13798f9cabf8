// Device printf: vprintf with a .local argument buffer. Only warp 0 prints: lines from different warps
// (or blocks) reach stdout in an order the hardware does not define, while one printf executed by several
// lanes of a warp comes out lane by lane, and a warp's printf calls come out in program order.
#include <cstdio>
extern "C" __global__ void printf_lines(const int* __restrict__ in, const float* __restrict__ fin, int* __restrict__ out) {
  int t = threadIdx.x;
  int lane = t & 31;
  int v = in[t];
  float f = fin[t];
  int s = v;
  for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);   // warp sum, same in every lane
  out[t] = s * 2 + lane;
  if (t < 32) {
    if (lane < 4) printf("lane %d: v=%d hex=%08x f=%.3f e=%e g=%g\n", lane, v, (unsigned)v, f, (double)f * 1e-7, (double)f);
    if (lane == 0) {
      printf("warp sum=%lld %5d|%-6s|%c%c %u%%\n", (long long)s, v & 0xff, "ab", 'O', 'K', 42u);
      printf("no args, tab\there\n");
    }
    if (lane == 31) printf("last lane %d of %d, block %d\n", lane, blockDim.x, blockIdx.x);
  }
}
