// Fast-math code as real kernels write it (compiled with -use_fast_math): every approximate instruction
// of the special function unit that nvcc emits for f32 (ex2, lg2, rcp, rsqrt, sqrt, sin, cos, tanh, div.approx,
// div.full) and the half-precision ex2/tanh forms, on adversarial inputs (specials, subnormals, every
// exponent, huge sine arguments), plus llm.c's tanh GELU and an online-softmax step as composite kernels.
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

constexpr int N = 8192;

__device__ __forceinline__ float gelu_tanh(float x) {  // llm.c gelu_forward
  const float s = sqrtf(2.0f / 3.14159265358979323846f);
  float cube = 0.044715f * x * x * x;
  return 0.5f * x * (1.0f + tanhf(s * (x + cube)));
}

extern "C" __global__ void fastmath(const float* __restrict__ x, const float* __restrict__ y,
                                    float* __restrict__ out, uint32_t* __restrict__ hout) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  const float a = x[i], b = y[i];
  float* o = out + i;
  o[0 * N] = __expf(a);
  o[1 * N] = exp2f(a);
  o[2 * N] = __logf(a);
  o[3 * N] = __log2f(a);
  o[4 * N] = __sinf(a);
  o[5 * N] = __cosf(a);
  o[6 * N] = __tanf(a);
  o[7 * N] = tanhf(a);
  o[8 * N] = rsqrtf(a);
  o[9 * N] = sqrtf(a);
  o[10 * N] = 1.0f / a;
  o[11 * N] = __fdividef(a, b);
  o[12 * N] = a / b;
  o[13 * N] = gelu_tanh(a);
  o[14 * N] = __powf(fabsf(a), b);
  float r;
  asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(a)); o[15 * N] = r;
  asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(a)); o[16 * N] = r;
  asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(a)); o[17 * N] = r;
  asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); o[18 * N] = r;
  // online softmax step: running max and rescaled sum, as flash-attention kernels write it
  const float m = fmaxf(a, b);
  o[19 * N] = __expf(a - m) + __expf(b - m) * __expf(m - a);

  const uint32_t h = __float_as_uint(a);
  uint32_t u;
  asm("ex2.approx.f16x2 %0, %1;" : "=r"(u) : "r"(h)); hout[0 * N + i] = u;
  asm("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(u) : "r"(h)); hout[1 * N + i] = u;
  asm("tanh.approx.f16x2 %0, %1;" : "=r"(u) : "r"(h)); hout[2 * N + i] = u;
  asm("tanh.approx.bf16x2 %0, %1;" : "=r"(u) : "r"(h)); hout[3 * N + i] = u;
  const __half2 hh = *reinterpret_cast<const __half2*>(&h);
  const __half2 e = h2exp2(hh);
  hout[4 * N + i] = *reinterpret_cast<const uint32_t*>(&e);
}
