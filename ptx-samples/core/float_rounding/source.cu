// IEEE-exact fp32/fp64 arithmetic under every rounding mode, on specials (signed zeros, subnormals,
// infinities, NaNs with payloads, huge/tiny values), halfway cases and random wide-exponent values.
// No -use_fast_math: the plain operators compile to the .rn forms, division and sqrt to the IEEE-exact ones.
#define NF 34
#define ND 32
extern "C" __global__ void float_rounding(const float* __restrict__ A, const float* __restrict__ B, const float* __restrict__ C,
                                          const double* __restrict__ DA, const double* __restrict__ DB, const double* __restrict__ DC,
                                          float* __restrict__ of, double* __restrict__ od, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = A[i], b = B[i], c = C[i];
  float* o = of + (size_t)i * NF;
  o[0] = __fadd_rn(a, b);  o[1] = __fadd_rz(a, b);  o[2] = __fadd_rd(a, b);  o[3] = __fadd_ru(a, b);
  o[4] = __fsub_rn(a, b);  o[5] = __fsub_rz(a, b);  o[6] = __fsub_rd(a, b);  o[7] = __fsub_ru(a, b);
  o[8] = __fmul_rn(a, b);  o[9] = __fmul_rz(a, b);  o[10] = __fmul_rd(a, b); o[11] = __fmul_ru(a, b);
  o[12] = __fmaf_rn(a, b, c); o[13] = __fmaf_rz(a, b, c); o[14] = __fmaf_rd(a, b, c); o[15] = __fmaf_ru(a, b, c);
  o[16] = __fdiv_rn(a, b); o[17] = __fdiv_rz(a, b); o[18] = __fdiv_rd(a, b); o[19] = __fdiv_ru(a, b);
  o[20] = __frcp_rn(a);    o[21] = __frcp_rz(a);    o[22] = __frcp_rd(a);    o[23] = __frcp_ru(a);
  o[24] = __fsqrt_rn(a);   o[25] = __fsqrt_rz(a);   o[26] = __fsqrt_rd(a);   o[27] = __fsqrt_ru(a);
  o[28] = a + b;
  o[29] = a * b;
  o[30] = fmaf(a, b, c);
  o[31] = a / b;
  o[32] = sqrtf(a);
  o[33] = 1.0f / a;

  double x = DA[i], y = DB[i], z = DC[i];
  double* d = od + (size_t)i * ND;
  d[0] = __dadd_rn(x, y);  d[1] = __dadd_rz(x, y);  d[2] = __dadd_rd(x, y);  d[3] = __dadd_ru(x, y);
  d[4] = __dsub_rn(x, y);  d[5] = __dsub_rz(x, y);  d[6] = __dsub_rd(x, y);  d[7] = __dsub_ru(x, y);
  d[8] = __dmul_rn(x, y);  d[9] = __dmul_rz(x, y);  d[10] = __dmul_rd(x, y); d[11] = __dmul_ru(x, y);
  d[12] = __fma_rn(x, y, z); d[13] = __fma_rz(x, y, z); d[14] = __fma_rd(x, y, z); d[15] = __fma_ru(x, y, z);
  d[16] = __ddiv_rn(x, y); d[17] = __ddiv_rz(x, y); d[18] = __ddiv_rd(x, y); d[19] = __ddiv_ru(x, y);
  d[20] = __drcp_rn(x);    d[21] = __drcp_rz(x);    d[22] = __drcp_rd(x);    d[23] = __drcp_ru(x);
  d[24] = __dsqrt_rn(x);   d[25] = __dsqrt_rz(x);   d[26] = __dsqrt_rd(x);   d[27] = __dsqrt_ru(x);
  d[28] = x + y;
  d[29] = x * y;
  d[30] = fma(x, y, z);
  d[31] = x / y;
}
