// Cooperative launch with several grid barriers: four sweeps of a 1-D Jacobi smoother over ping-pong
// buffers, each CTA's threads striding over the whole vector, cg::this_grid().sync() between sweeps
// (a CTA reads its neighbours' last values, written by other CTAs in the previous sweep). Written for
// ptxrun. Its twin without the grid barrier is ptx-samples/hazards/coop_missing_grid_sync.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#ifndef SWEEP_BARRIER
#define SWEEP_BARRIER() grid.sync()
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
