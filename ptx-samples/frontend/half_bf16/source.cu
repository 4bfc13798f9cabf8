#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half_axpy(int n, float alpha, const __half* __restrict__ x, __half* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2half(alpha * __half2float(x[i]) + __half2float(y[i]));
}

extern "C" __global__ void half2_math(int n2, const __half2* __restrict__ a, const __half2* __restrict__ b,
                                      __half2* __restrict__ out, unsigned short* __restrict__ bits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  __half2 x = a[i], y = b[i];
  __half2 s = __hfma2(x, y, __floats2half2_rn(1.0f, -1.0f));
  s = __hadd2(s, __hmul2(x, x));
  s = __hmax2(s, h2exp(__hneg2(y)));
  s = __hmul2_sat(s, __float2half2_rn(0.5f));
  __half lo = __low2half(s), hi = __high2half(s);
  if (__hlt(lo, hi)) s = __halves2half2(hi, lo);
  if (__hbgt2(x, y)) s = __h2div(s, y);
  out[i] = s;
  bits[i] = __half_as_ushort(hrcp(hsqrt(__habs(lo)))) ^ __half_as_ushort(__short2half_rn((short)i));
}

extern "C" __global__ void bf16_math(int n, const __nv_bfloat16* __restrict__ x, const __nv_bfloat162* __restrict__ x2,
                                     float* __restrict__ out, __nv_bfloat162* __restrict__ out2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 v = x[i];
  __nv_bfloat16 w = __hfma(v, __float2bfloat16(2.0f), __float2bfloat16_rz(-0.75f));
  out[i] = __bfloat162float(w) + __bfloat162float(hexp(v)) + (float)__bfloat162int_rn(v);
  __nv_bfloat162 p = x2[i];
  __nv_bfloat162 q = __hmul2(p, __floats2bfloat162_rn(0.5f, 1.5f));
  q = __hadd2(q, __bfloat162bfloat162(v));
  q = __hmin2(q, __float22bfloat162_rn(make_float2(8.0f, 8.0f)));
  out2[i] = q;
  // convert between formats
  __half h = __float2half_rn(__bfloat162float(__low2bfloat16(q)));
  out[n + i] = __half2float(h) + __low2float(q) + __high2float(q);
}
