// Benchmark: a 64x64x16-tiled fp32 matrix product fed by a three-stage cp.async pipeline
// (__pipeline_memcpy_async: 16-byte cp.async.ca.shared.global, commit_group, wait_group 1), each
// thread a 4x4 block of C accumulated with fmaf in k order (so the bytes equal a plain k loop's).
// n 256, grid [4, 4], block 256.
#include <cuda_pipeline.h>
#define BM 64
#define BN 64
#define BK 16
#define STAGES 3
extern "C" __global__ void __launch_bounds__(256) sgemm_cpasync(const float* __restrict__ A, const float* __restrict__ B, float* C, int n) {
  __shared__ __align__(16) float As[STAGES][BM * BK];
  __shared__ __align__(16) float Bs[STAGES][BK * BN];
  const int tid = threadIdx.x, bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  auto load = [&](int stage, int k0) {
    const int ar = tid / 4, ac = (tid % 4) * 4;
    __pipeline_memcpy_async(&As[stage][ar * BK + ac], &A[(size_t)(bm + ar) * n + k0 + ac], 16);
    const int br = tid / 16, bc = (tid % 16) * 4;
    __pipeline_memcpy_async(&Bs[stage][br * BN + bc], &B[(size_t)(k0 + br) * n + bn + bc], 16);
  };
  float acc[4][4] = {};
  const int tr = (tid / 16) * 4, tc = (tid % 16) * 4, ktiles = n / BK;
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) load(s, s * BK);
    __pipeline_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    __pipeline_wait_prior(STAGES - 2);   // tile kt has landed (this thread's copies)
    __syncthreads();                      // ... and every thread's; the stage refilled below is free
    const int next = kt + STAGES - 1;
    if (next < ktiles) load(next % STAGES, next * BK);
    __pipeline_commit();
    const int s = kt % STAGES;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[s][(tr + i) * BK + k];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[s][k * BN + tc + j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) C[(size_t)(bm + tr + i) * n + bn + tc + j] = acc[i][j];
}
