// Packed half2 / bfloat162 vector math with exactly rounded operations only (no h2exp/h2sqrt/h2div, which
// use approximate instructions): fma/mul/add/sub (plain, _rn, _sat, _relu), neg/abs, min/max (+NaN variants),
// complex multiply-add, packed comparisons returning 1.0/0.0 and masks, lane shuffles (swap, lows/highs,
// halves2half2), conversions f32x2 <-> f16x2/bf16x2, and a 16-term dot product accumulated in half2 and
// in bfloat162 (every rounding step is visible in the result).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define NH 24
#define NB 18
extern "C" __global__ void half2_vec(const __half2* __restrict__ P, const __half2* __restrict__ Q,
                                     const __nv_bfloat162* __restrict__ U, const __nv_bfloat162* __restrict__ V,
                                     __half2* __restrict__ oh, __nv_bfloat162* __restrict__ ob,
                                     unsigned* __restrict__ om, float* __restrict__ of, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  __half2 p = P[t], q = Q[t], r = P[(t + 7) % n];
  __nv_bfloat162 u = U[t], v = V[t], w = U[(t + 7) % n];
  __half2* h = oh + (size_t)t * NH;
  h[0] = __hfma2(p, q, r);
  h[1] = __hmul2(p, q);
  h[2] = __hadd2(p, q);
  h[3] = __hsub2(p, q);
  h[4] = __hfma2_sat(p, q, r);
  h[5] = __hmul2_sat(p, q);
  h[6] = __hadd2_sat(p, r);
  h[7] = __hfma2_relu(p, q, r);
  h[8] = __hneg2(p);
  h[9] = __habs2(q);
  h[10] = __hmin2(p, q);
  h[11] = __hmax2(p, q);
  h[12] = __hmin2_nan(p, q);
  h[13] = __hmax2_nan(p, q);
  h[14] = __hcmadd(p, q, r);
  h[15] = __hmul2_rn(p, r);
  h[16] = __hadd2_rn(q, r);
  h[17] = __lowhigh2highlow(p);
  h[18] = __lows2half2(p, q);
  h[19] = __highs2half2(p, q);
  h[20] = __halves2half2(__high2half(q), __low2half(r));
  h[21] = __hlt2(p, q);
  h[22] = __hgeu2(p, q);
  __half2 acc = __float2half2_rn(0.0f);
  for (int k = 0; k < 16; ++k) acc = __hfma2(P[(t + k) % n], Q[(t * 3 + k) % n], acc);
  h[23] = acc;

  __nv_bfloat162* b = ob + (size_t)t * NB;
  b[0] = __hfma2(u, v, w);
  b[1] = __hmul2(u, v);
  b[2] = __hadd2(u, v);
  b[3] = __hsub2(u, v);
  b[4] = __hneg2(u);
  b[5] = __habs2(v);
  b[6] = __hmin2(u, v);
  b[7] = __hmax2(u, v);
  b[8] = __hmin2_nan(u, v);
  b[9] = __hmax2_nan(u, v);
  b[10] = __hfma2_relu(u, v, w);
  b[11] = __hfma2_sat(u, v, w);
  b[12] = __hcmadd(u, v, w);
  b[13] = __hmul2_rn(u, w);
  b[14] = __hadd2_rn(v, w);
  b[15] = __lowhigh2highlow(u);
  b[16] = __hle2(u, v);
  __nv_bfloat162 bacc = __float2bfloat162_rn(0.0f);
  for (int k = 0; k < 16; ++k) bacc = __hfma2(U[(t + k) % n], V[(t * 5 + k) % n], bacc);
  b[17] = bacc;

  unsigned* m = om + (size_t)t * 6;
  m[0] = __heq2_mask(p, q) ^ (__hne2_mask(p, r) << 1);
  m[1] = __hlt2_mask(p, q) + __hgtu2_mask(q, r);
  m[2] = __heq2_mask(u, v) ^ (__hleu2_mask(u, w) >> 1);
  m[3] = __hbeq2(p, q) + 2u * __hbltu2(p, q) + 4u * __hbgt2(u, v) + 8u * __hbgeu2(u, v);
  m[4] = __hisnan2(p) == __float2half2_rn(1.0f) ? 0 : 1;   // never used as a bool: keeps the f16x2 compare
  {
    __half2 nn = __hisnan2(q);
    __nv_bfloat162 bn = __hisnan2(v);
    m[5] = *(unsigned*)&nn ^ (*(unsigned*)&bn << 3);
  }
  float* f = of + (size_t)t * 6;
  float2 fp = __half22float2(__hfma2(p, q, r));
  float2 fu = __bfloat1622float2(__hfma2(u, v, w));
  f[0] = fp.x; f[1] = fp.y; f[2] = fu.x; f[3] = fu.y;
  float2 g2 = __half22float2(__float22half2_rn(make_float2(fp.x * 1.001f, fu.y * 0.999f)));
  f[4] = g2.x + g2.y;
  f[5] = __low2float(acc) + __high2float(acc) + __low2float(bacc) - __high2float(bacc);
}
