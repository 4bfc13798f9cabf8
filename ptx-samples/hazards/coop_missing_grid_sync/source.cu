// BUGGY twin of ptx-samples/launch/coop_jacobi: the barrier between sweeps is __syncthreads(), which
// orders only a CTA's own threads, so a CTA reads its neighbours' values while other CTAs still write
// them (the H100 gives different bytes from run to run). Written for ptxrun.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#ifndef SWEEP_BARRIER
#define SWEEP_BARRIER() __syncthreads()   // the bug: CTAs of the grid are not ordered
#endif

extern "C" __global__ void jacobi(float* a, float* b, const float* f, int n, int sweeps) {
  cg::grid_group grid = cg::this_grid();
  for (int s = 0; s < sweeps; ++s) {
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
      float l = i > 0 ? a[i - 1] : 0.0f;
      float r = i + 1 < n ? a[i + 1] : 0.0f;
      b[i] = fmaf(0.5f, l + r, f[i]);
    }
    SWEEP_BARRIER();
    float* t = a;
    a = b;
    b = t;
  }
}
