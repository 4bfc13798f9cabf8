// ldmatrix / stmatrix probe (PTX ISA 9.7.14.5.15-16): every .m8n8 .b16 form (.x1/.x2/.x4, with and
// without .trans) on one warp, each lane supplying the address of a row chosen by a permutation, so
// rows are neither contiguous nor in lane order. ld_out[form][lane][4] holds the registers each
// ldmatrix form returned; st_out[form] is a 1 KiB shared buffer after one stmatrix form stored
// registers built from the input into it.
#include <cstdint>

constexpr int ROWS = 64;  // rows of 16 bytes (8 b16 elements)

__device__ __forceinline__ void dump(uint32_t* o, int form, int t, uint32_t a, uint32_t b, uint32_t c,
                                     uint32_t d) {
  uint32_t* p = o + (form * 32 + t) * 4;
  p[0] = a; p[1] = b; p[2] = c; p[3] = d;
}

extern "C" __global__ void __launch_bounds__(32) ldstmatrix(const uint32_t* __restrict__ src,
                                                            const uint32_t* __restrict__ perm,
                                                            uint32_t* __restrict__ ld_out,
                                                            uint32_t* __restrict__ st_out) {
  __shared__ __align__(16) uint32_t tile[ROWS * 4];
  __shared__ __align__(16) uint32_t dst[ROWS * 4];
  const int t = threadIdx.x;
  for (int i = t; i < ROWS * 4; i += 32) tile[i] = src[i];
  __syncwarp();
  const uint32_t row = perm[t] % ROWS;
  const uint32_t a = (uint32_t)__cvta_generic_to_shared(&tile[row * 4]);
  const uint32_t s = (uint32_t)__cvta_generic_to_shared(&dst[row * 4]);
  uint32_t r0, r1, r2, r3;

  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
  dump(ld_out, 0, t, r0, 0, 0, 0);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
  dump(ld_out, 1, t, r0, r1, 0, 0);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
  dump(ld_out, 2, t, r0, r1, r2, r3);
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a));
  dump(ld_out, 3, t, r0, 0, 0, 0);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));
  dump(ld_out, 4, t, r0, r1, 0, 0);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
  dump(ld_out, 5, t, r0, r1, r2, r3);

  const uint32_t v0 = src[t * 4] ^ 0x11111111u, v1 = src[t * 4 + 1] ^ 0x22222222u;
  const uint32_t v2 = src[t * 4 + 2] ^ 0x44444444u, v3 = src[t * 4 + 3] ^ 0x88888888u;
  for (int form = 0; form < 6; ++form) {
    for (int i = t; i < ROWS * 4; i += 32) dst[i] = 0xdeadbeefu;
    __syncwarp();
    switch (form) {
      case 0: asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(s), "r"(v0) : "memory"); break;
      case 1: asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(s), "r"(v0), "r"(v1) : "memory"); break;
      case 2: asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                           :: "r"(s), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory"); break;
      case 3: asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(s), "r"(v0) : "memory"); break;
      case 4: asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(s), "r"(v0), "r"(v1) : "memory"); break;
      default: asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
                            :: "r"(s), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory"); break;
    }
    __syncwarp();
    for (int i = t; i < ROWS * 4; i += 32) st_out[form * ROWS * 4 + i] = dst[i];
    __syncwarp();
  }
}
