extern "C" __global__ void fast_math_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = x[(i + 7) % n];
  float r = sinf(a) * cosf(b) + expf(-a * a) + logf(fabsf(b) + 1.0f) + powf(fabsf(a), 1.7f);
  r += a / b + sqrtf(fabsf(a)) + 1.0f / sqrtf(fabsf(b) + 1e-3f) + tanf(a) + exp10f(b * 0.1f);
  r += fmaxf(a, b) * fminf(a, b) - (a > 1e30f ? 0.0f : a * b) + __saturatef(r);
  y[i] = r;
  y[n + i] = (float)(double)r;   // f64 ops are unaffected by fast math
}
