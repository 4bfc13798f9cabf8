// half and bfloat16: conversions from f32 in four rounding modes, scalar and packed (x2) arithmetic,
// min/max with and without NaN propagation, relu/sat variants, comparisons and conversions to integers.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define NH 30
#define NB 28
#define NI 14
#define NF 6
extern "C" __global__ void half_bf16(const float* __restrict__ X, const float* __restrict__ Y, const float* __restrict__ Z,
                                     __half* __restrict__ oh, __nv_bfloat16* __restrict__ ob, int* __restrict__ oi,
                                     float* __restrict__ of, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float x = X[t], y = Y[t], z = Z[t];
  __half hx = __float2half_rn(x), hy = __float2half_rn(y), hz = __float2half_rn(z);
  __half* h = oh + (size_t)t * NH;
  h[0] = hx; h[1] = __float2half_rz(x); h[2] = __float2half_rd(x); h[3] = __float2half_ru(x);
  h[4] = __hadd(hx, hy); h[5] = __hsub(hx, hy); h[6] = __hmul(hx, hy); h[7] = __hfma(hx, hy, hz);
  h[8] = __hneg(hx); h[9] = __habs(hx);
  h[10] = __hmin(hx, hy); h[11] = __hmax(hx, hy); h[12] = __hmin_nan(hx, hy); h[13] = __hmax_nan(hx, hy);
  h[14] = __hfma_relu(hx, hy, hz); h[15] = __hadd_sat(hx, hy);
  __half2 p = __floats2half2_rn(x, y), q = __floats2half2_rn(y, z);
  __half2 r;
  r = __hadd2(p, q);        h[16] = __low2half(r); h[17] = __high2half(r);
  r = __hmul2(p, q);        h[18] = __low2half(r); h[19] = __high2half(r);
  r = __hfma2(p, q, p);     h[20] = __low2half(r); h[21] = __high2half(r);
  r = __hmin2(p, q);        h[22] = __low2half(r); h[23] = __high2half(r);
  r = __hmax2_nan(p, q);    h[24] = __low2half(r); h[25] = __high2half(r);
  h[26] = __int2half_rn((int)(y * 100000.0f)); h[27] = __uint2half_rz((unsigned)fabsf(z * 3000.0f));
  h[28] = __double2half((double)x * 1.0000001); h[29] = __short2half_rd((short)(x * 1000.0f));

  __nv_bfloat16 bx = __float2bfloat16_rn(x), by = __float2bfloat16_rn(y), bz = __float2bfloat16_rn(z);
  __nv_bfloat16* b = ob + (size_t)t * NB;
  b[0] = bx; b[1] = __float2bfloat16_rz(x); b[2] = __float2bfloat16_rd(x); b[3] = __float2bfloat16_ru(x);
  b[4] = __hadd(bx, by); b[5] = __hsub(bx, by); b[6] = __hmul(bx, by); b[7] = __hfma(bx, by, bz);
  b[8] = __hneg(bx); b[9] = __habs(bx);
  b[10] = __hmin(bx, by); b[11] = __hmax(bx, by); b[12] = __hmin_nan(bx, by); b[13] = __hmax_nan(bx, by);
  b[14] = __hfma_relu(bx, by, bz);
  __nv_bfloat162 u = __floats2bfloat162_rn(x, y), v = __floats2bfloat162_rn(y, z), w;
  w = __hadd2(u, v);        b[15] = __low2bfloat16(w); b[16] = __high2bfloat16(w);
  w = __hmul2(u, v);        b[17] = __low2bfloat16(w); b[18] = __high2bfloat16(w);
  w = __hfma2(u, v, u);     b[19] = __low2bfloat16(w); b[20] = __high2bfloat16(w);
  w = __hmin2_nan(u, v);    b[21] = __low2bfloat16(w); b[22] = __high2bfloat16(w);
  w = __hmax2(u, v);        b[23] = __low2bfloat16(w); b[24] = __high2bfloat16(w);
  b[25] = __float2bfloat16(x * y);
  b[26] = __double2bfloat16((double)z);
  b[27] = __int2bfloat16_rn((int)(x * 1000.0f));

  int* c = oi + (size_t)t * NI;
  c[0] = __hlt(hx, hy); c[1] = __hle(hx, hy); c[2] = __heq(hx, hy); c[3] = __hneu(hx, hy);
  c[4] = __hltu(hx, hy); c[5] = __hisnan(hx); c[6] = __hisinf(hx);
  c[7] = __half2int_rn(hz); c[8] = __half2int_rz(hz); c[9] = __half2int_rd(hz); c[10] = __half2int_ru(hz);
  c[11] = (int)__hbgt2(p, q) + 2 * (int)__hbltu2(p, q);
  c[12] = __hlt(bx, by) + 2 * __hgeu(bx, by) + 4 * __hisnan(bx);
  c[13] = __bfloat162int_rz(bz);

  float* f = of + (size_t)t * NF;
  f[0] = __half2float(hx); f[1] = __half2float(h[7]); f[2] = __bfloat162float(bx); f[3] = __bfloat162float(b[7]);
  f[4] = __low2float(p) + __high2float(q);
  f[5] = __low2float(u) * __high2float(v);
}
