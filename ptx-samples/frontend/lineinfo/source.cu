#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ float smooth(float a, float b) { return 0.5f * (a + b); }

__device__ float warp_sum(cg::thread_block_tile<32> w, float v) {
  for (int o = w.size() / 2; o > 0; o /= 2) v += w.shfl_down(v, o);
  return v;
}

extern "C" __global__ void lineinfo_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  int i = block.group_index().x * block.size() + block.thread_rank();
  float v = 0.0f;
  if (i < n)
    v = smooth(in[i], i + 1 < n ? in[i + 1] : 0.0f);
  v = warp_sum(warp, v);
  if (warp.thread_rank() == 0)
    atomicAdd(out, v);
}
