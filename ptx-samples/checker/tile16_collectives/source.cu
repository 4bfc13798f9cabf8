// Warp collectives over the two 16-lane tiles of each warp (cooperative_groups::tiled_partition<16>
// and CUB's 16-thread logical warps): each lane names its own tile's member mask (0x0000ffff or
// 0xffff0000), so one converged warp executes two collectives at each shfl/vote/redux/bar.warp.sync.
// Checks per-tile results (shuffle tree, ballot, redux.sync add and max, an exchange through shared
// memory ordered by the tile's own sync) and CUB WarpReduce / WarpScan with 16 logical threads.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
namespace cg = cooperative_groups;
constexpr int T = 128;

extern "C" __global__ void __launch_bounds__(T) tile16_collectives(const int* __restrict__ in, int* __restrict__ out) {
  using WR = cub::WarpReduce<int, 16>;
  using WS = cub::WarpScan<int, 16>;
  __shared__ typename WR::TempStorage wr[T / 16];
  __shared__ typename WS::TempStorage ws[T / 16];
  __shared__ int s[T];
  auto t = cg::tiled_partition<16>(cg::this_thread_block());
  const int tid = threadIdx.x, w = tid / 16;
  const int v = in[blockIdx.x * T + tid];
  int r = v;
  for (int d = 8; d > 0; d /= 2) r += t.shfl_down(r, d);
  r = t.shfl(r, 0);
  const unsigned b = t.ballot(v & 1);
  const int sum = cg::reduce(t, v, cg::plus<int>());
  const int mx = cg::reduce(t, v, cg::greater<int>());
  s[tid] = v * 3;
  t.sync();                                        // orders the tile's lanes, not the other tile's
  const int nb = s[(tid & ~15) | ((tid + 1) & 15)];
  const int cs = WR(wr[w]).Sum(v);                 // defined in the logical warp's lane 0
  int ex;
  WS(ws[w]).ExclusiveSum(v, ex);
  int* o = out + blockIdx.x * T * 7 + tid;
  o[0] = r;
  o[T] = (int)b;
  o[2 * T] = sum;
  o[3 * T] = mx;
  o[4 * T] = nb;
  o[5 * T] = t.thread_rank() == 0 ? cs : 0;
  o[6 * T] = ex;
}
