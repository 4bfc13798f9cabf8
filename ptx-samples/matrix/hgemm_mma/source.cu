// A tensor-core GEMM the way hand-tuned CUDA writes one (inline PTX, as CUTLASS's sm80 atoms do):
// C = A x B for f16 A (M x K) and B (K x N), both row-major, f32 C. A CTA of 4 warps computes a
// 64 x 64 tile; k advances in 32-wide steps through a 2-stage cp.async.cg pipeline in shared memory;
// each warp loads A with ldmatrix.x4 and B with ldmatrix.x2.trans and issues 16 mma.sync.m16n8k16
// per step. M = N = K = 128. Written for ptxrun.
#include <cuda_fp16.h>
#include <stdint.h>

constexpr int N = 128, K = 128, BM = 64, BN = 64, BK = 32;

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem));
}

extern "C" __global__ void hgemm_mma(const half *A, const half *B, float *C) {
  __shared__ __align__(128) half As[2][BM][BK];
  __shared__ __align__(128) half Bs[2][BK][BN];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  float acc[2][4][4] = {};
  auto load = [&](int stage, int k0) {
    for (int i = tid; i < BM * BK / 8; i += 128) {
      int r = i / (BK / 8), c = (i % (BK / 8)) * 8;
      cp_async16(&As[stage][r][c], A + (bm + r) * K + k0 + c);
    }
    for (int i = tid; i < BK * BN / 8; i += 128) {
      int r = i / (BN / 8), c = (i % (BN / 8)) * 8;
      cp_async16(&Bs[stage][r][c], B + (k0 + r) * N + bn + c);
    }
    asm volatile("cp.async.commit_group;");
  };
  load(0, 0);
  for (int kt = 0; kt < K / BK; ++kt) {
    if (kt + 1 < K / BK) {
      load((kt + 1) & 1, (kt + 1) * BK);
      asm volatile("cp.async.wait_group 1;");
    } else {
      asm volatile("cp.async.wait_group 0;");
    }
    __syncthreads();
    const int s = kt & 1;
    for (int kk = 0; kk < BK; kk += 16) {
      uint32_t a[2][4], b[4][2];
      for (int mi = 0; mi < 2; ++mi) {
        int row = (warp / 2) * 32 + mi * 16 + lane % 16, col = kk + (lane / 16) * 8;
        unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&As[s][row][col]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a[mi][0]), "=r"(a[mi][1]), "=r"(a[mi][2]), "=r"(a[mi][3])
                     : "r"(addr));
      }
      for (int ni = 0; ni < 4; ++ni) {
        int krow = kk + lane % 16, col = (warp % 2) * 32 + ni * 8;
        unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&Bs[s][krow][col]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                     : "=r"(b[ni][0]), "=r"(b[ni][1])
                     : "r"(addr));
      }
      for (int mi = 0; mi < 2; ++mi)
        for (int ni = 0; ni < 4; ++ni) {
          float *d = acc[mi][ni];
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
              "{%8, %9}, {%0, %1, %2, %3};"
              : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
              : "r"(a[mi][0]), "r"(a[mi][1]), "r"(a[mi][2]), "r"(a[mi][3]), "r"(b[ni][0]), "r"(b[ni][1]));
        }
    }
    __syncthreads();
  }
  const int g = lane / 4, t = lane % 4;
  for (int mi = 0; mi < 2; ++mi)
    for (int ni = 0; ni < 4; ++ni)
      for (int i = 0; i < 4; ++i) {
        int row = bm + (warp / 2) * 32 + mi * 16 + g + 8 * (i / 2);
        int col = bn + (warp % 2) * 32 + ni * 8 + 2 * t + i % 2;
        C[row * N + col] = acc[mi][ni][i];
      }
}
