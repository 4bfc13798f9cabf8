// Benchmark: a plain 16x16 shared-memory tiled SGEMM (C = A * B, n x n row-major), one output per thread.
// n 256, grid 256, block 256.
#define T 16
extern "C" __global__ void sgemm_plain(const float* A, const float* B, float* C, int n) {
  __shared__ float As[T][T], Bs[T][T];
  int tx = threadIdx.x % T, ty = threadIdx.x / T, tiles = n / T;
  int row = (blockIdx.x / tiles) * T + ty, col = (blockIdx.x % tiles) * T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < n; k0 += T) {
    As[ty][tx] = A[row * n + k0 + tx]; Bs[ty][tx] = B[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  C[row * n + col] = acc;
}
