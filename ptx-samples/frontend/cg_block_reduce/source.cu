#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// Each block reduces a grid-strided slice of `in` to one sum and one max.
extern "C" __global__ void block_reduce(const float* __restrict__ in, float* __restrict__ block_sums,
                                        int* __restrict__ block_max, int n) {
  __shared__ float warp_sums[32];
  __shared__ int warp_max[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);

  float s = 0.0f;
  int m = INT_MIN;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = in[i];
    s += v;
    m = max(m, __float2int_rz(v * 100.0f));
  }
  s = cg::reduce(warp, s, cg::plus<float>());
  m = cg::reduce(warp, m, cg::greater<int>());
  if (warp.thread_rank() == 0) {
    warp_sums[warp.meta_group_rank()] = s;
    warp_max[warp.meta_group_rank()] = m;
  }
  block.sync();
  if (warp.meta_group_rank() == 0) {
    unsigned nw = warp.meta_group_size();
    s = warp.thread_rank() < nw ? warp_sums[warp.thread_rank()] : 0.0f;
    m = warp.thread_rank() < nw ? warp_max[warp.thread_rank()] : INT_MIN;
    s = cg::reduce(warp, s, cg::plus<float>());
    m = cg::reduce(warp, m, cg::greater<int>());
    if (block.thread_rank() == 0) {
      block_sums[blockIdx.x] = s;
      block_max[blockIdx.x] = m;
    }
  }
}

// A 4-wide tile reduction (sub-warp tiles use shfl with a width/mask).
extern "C" __global__ void tile4_sum(const unsigned* in, unsigned* out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<4>(block);
  unsigned v = in[block.group_index().x * block.size() + block.thread_rank()];
  unsigned r = cg::reduce(tile, v, cg::plus<unsigned>());
  if (tile.thread_rank() == 0) out[(block.group_index().x * block.size() + block.thread_rank()) / 4] = r;
}
