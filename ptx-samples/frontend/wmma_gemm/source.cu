#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

// C[MxN] = A[MxK] * B[KxN]; one warp per 16x16 output tile. A row-major, B col-major.
extern "C" __global__ void wmma_gemm(const half* __restrict__ a, const half* __restrict__ b, float* __restrict__ c,
                                     int M, int N, int K, float alpha) {
  int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int warpN = blockIdx.y * blockDim.y + threadIdx.y;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  int row = warpM * 16, col = warpN * 16;
  if (row >= M || col >= N) return;
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + row * K + k, K);
    wmma::load_matrix_sync(fb, b + col * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= alpha;
  wmma::store_matrix_sync(c + row * N + col, acc, N, wmma::mem_row_major);
}

// FP64 tensor-core tile (m8n8k4), sm_80+
extern "C" __global__ void wmma_dgemm_tile(const double* a, const double* b, double* c) {
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::load_matrix_sync(acc, c, 8, wmma::mem_row_major);
  wmma::load_matrix_sync(fa, a, 4);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c, acc, 8, wmma::mem_col_major);
}
