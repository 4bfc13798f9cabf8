// A WMMA GEMM as the CUDA Programming Guide writes one (nvcuda::wmma, section "Warp Matrix
// Functions"): each warp computes one 16x16 tile of C = A x B + C, A row-major, B column-major,
// stepping k through 16-wide tiles loaded straight from global memory, with the accumulator
// scaled elementwise in its fragment (fragments are element lists: any elementwise op is legal).
// M = 64, N = 48, K = 96; grid = (N/16, M/16) CTAs of one warp. Written for ptxrun.
#include <mma.h>
using namespace nvcuda;

constexpr int N = 48, K = 96;  // M = 64: gridDim.y = M / 16

extern "C" __global__ void wmma_gemm(const half *a, const half *b, float *c, float alpha) {
    int tile_m = blockIdx.y * 16, tile_n = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c + tile_m * N + tile_n, N, wmma::mem_row_major);
    for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= alpha;
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tile_m * K + k, K);
        wmma::load_matrix_sync(fb, b + tile_n * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + tile_m * N + tile_n, acc, N, wmma::mem_row_major);
}
