// Builds the Params of ../source.cu's CUTLASS GEMM on the host, as Gemm::initialize does, for
// M x N x K = 200 x 184 x 136, row-major A (lda = K), B (ldb = N), C and D (N), alpha 1.5,
// beta -0.5, with sentinel pointers; writes params.bin and prints the launch shape and the
// offsets at which each pointer sits (launch.toml gives the buffers there).
//   nvcc -std=c++17 -I<cutlass>/include params.cu -o params && ./params
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <new>
#include <cutlass/gemm/device/gemm.h>

using Gemm = cutlass::gemm::device::Gemm<float, cutlass::layout::RowMajor,
                                         float, cutlass::layout::RowMajor,
                                         float, cutlass::layout::RowMajor>;

int main() {
  const int M = 200, N = 184, K = 136;
  float* sentinel[4];
  for (int i = 0; i < 4; ++i) sentinel[i] = reinterpret_cast<float*>(0x5e00000000000000ull + (uint64_t(i + 1) << 40));
  Gemm::Arguments args({M, N, K}, {sentinel[0], K}, {sentinel[1], N}, {sentinel[2], N}, {sentinel[3], N}, {1.5f, -0.5f});
  Gemm::ThreadblockSwizzle swizzle;
  cutlass::gemm::GemmCoord tiled = swizzle.get_tiled_shape(
      args.problem_size, {Gemm::ThreadblockShape::kM, Gemm::ThreadblockShape::kN, Gemm::ThreadblockShape::kK},
      args.split_k_slices);
  // Built in zeroed storage, so the padding between fields is zero (not stack garbage).
  alignas(Gemm::GemmKernel::Params) static unsigned char storage[sizeof(Gemm::GemmKernel::Params)];
  auto& params = *new (storage) Gemm::GemmKernel::Params{
      args.problem_size, tiled, args.ref_A.non_const_ref(), args.ref_B.non_const_ref(),
      args.ref_C.non_const_ref(), args.ref_D, args.epilogue, nullptr,
      args.gather_A_indices, args.gather_B_indices, args.scatter_D_indices};
  dim3 grid = swizzle.get_grid_shape(tiled);
  printf("grid = [%u, %u, %u]\nblock = %d\ndynamic_shared_bytes = %zu\nsize = %zu\n", grid.x, grid.y, grid.z,
         Gemm::GemmKernel::kThreadCount, sizeof(Gemm::GemmKernel::SharedStorage), sizeof(params));
  unsigned char bytes[sizeof(params)];
  memcpy(bytes, &params, sizeof(params));
  for (size_t off = 0; off + 8 <= sizeof(params); off += 8) {
    uint64_t v;
    memcpy(&v, bytes + off, 8);
    for (int i = 0; i < 4; ++i)
      if (v == reinterpret_cast<uint64_t>(sentinel[i])) {
        printf("pointer %c at %zu\n", "ABCD"[i], off);
        memset(bytes + off, 0, 8);
      }
  }
  FILE* f = fopen("params.bin", "wb");
  fwrite(bytes, 1, sizeof(params), f);
  fclose(f);
  return 0;
}
