#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;
__global__ void gridsync(int* a, int n){
  cg::grid_group g = cg::this_grid();
  for(int i=g.thread_rank(); i<n; i+=g.size()) a[i]*=2;
  g.sync();
  if(g.thread_rank()==0) a[0]=a[n-1];
  g.sync();
}
__global__ void mcpy(const float* in, float* out){
  extern __shared__ float sm[];
  auto b = cg::this_thread_block();
  cg::memcpy_async(b, sm, in + blockIdx.x*1024, sizeof(float)*1024);
  cg::wait(b);
  auto t = cg::tiled_partition<32>(b);
  float v = sm[threadIdx.x];
  float r = cg::reduce(t, v, cg::plus<float>());
  int iv = cg::inclusive_scan(t, (int)v);
  auto t4 = cg::tiled_partition<4>(t);
  int m = cg::reduce(t4, iv, cg::greater<int>());
  auto co = cg::coalesced_threads();
  int x = co.shfl(m, 0);
  if (v > 0) { auto ac = cg::coalesced_threads(); x += ac.num_threads(); x += cg::reduce(ac, x, cg::bit_xor<int>()); }
  out[b.thread_rank()] = r + x + t.any(v>1) + t.ballot(v<0) + t.match_any(iv);
}
#if __CUDA_ARCH__ >= 900 || !defined(__CUDA_ARCH__)
__global__ void clus(int* o){
  auto c = cg::this_cluster();
  extern __shared__ int s[];
  s[threadIdx.x] = threadIdx.x;
  c.sync();
  int* r = c.map_shared_rank(s, (c.block_rank()+1)%c.num_blocks());
  o[threadIdx.x] = r[threadIdx.x] + c.block_index().x + c.dim_blocks().x;
  c.sync();
}
#endif
__global__ void mgrid(int*a){ auto g = cg::this_grid(); a[g.block_rank()] = g.num_blocks(); g.sync(); }
