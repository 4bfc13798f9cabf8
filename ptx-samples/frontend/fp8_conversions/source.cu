#include <cuda_fp8.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// Quantise float pairs to fp8 (both formats), dequantise back to half2 and float.
extern "C" __global__ void fp8_roundtrip(const float2* __restrict__ in, __nv_fp8x2_storage_t* __restrict__ q_e4m3,
                                         __nv_fp8x2_storage_t* __restrict__ q_e5m2, __half2* __restrict__ deq, float* __restrict__ err, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 v = in[i];
  __nv_fp8x2_storage_t a = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
  __nv_fp8x2_storage_t b = __nv_cvt_float2_to_fp8x2(v, __NV_NOSAT, __NV_E5M2);
  q_e4m3[i] = a;
  q_e5m2[i] = b;
  __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(a, __NV_E4M3);
  deq[i] = __half2(h);
  __nv_fp8_e4m3 s(v.x);                        // scalar class conversions
  __nv_fp8_e5m2 t(__float2bfloat16(v.y));
  __nv_fp8x4_e4m3 four(make_float4(v.x, v.y, -v.x, -v.y));
  float back = float(s) + float(t) + float(__nv_fp8_e4m3(__half(v.y)));
  float4 f4 = float4(four);
  err[i] = fabsf(back - v.x - v.y) + f4.x + f4.w;
}
