// Math library on a grid of ordinary and special values (0, -0, +-inf, NaN, subnormal, huge arguments for the
// trig range reduction, values near 1 for the logs), float and double. Results are split by whether the
// library code reaches an approximate (MUFU) instruction:
//   fa : f32 functions built on ex2.approx / rsqrt.approx / rcp.approx / lg2.approx (compared with tolerance 1e-6)
//   fx : f32 functions made of exact IEEE operations only (logf, log2f, sinf, cosf, sqrtf): bit exact
//   od : f64 functions made of exact operations only (exp, exp2, sin, cos, sqrt): bit exact
//   ods: f64 functions whose code uses an approximate seed (rcp.approx.ftz.f64, ex2/lg2.approx.ftz.f32)
//        refined afterwards (log, log2, tanh, erf, cbrt, pow), and rsqrt (a bare rsqrt.approx.f64): bit exact
#define NA 9
#define NX 7
#define ND 6
#define NS 9
extern "C" __global__ void math_lib(const float* __restrict__ X, const float* __restrict__ Y,
                                    const double* __restrict__ XD, const double* __restrict__ YD,
                                    float* __restrict__ fa, float* __restrict__ fx, double* __restrict__ od,
                                    double* __restrict__ ods, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float x = X[t], y = Y[t];
  double xd = XD[t], yd = YD[t];
  float* a = fa + (size_t)t * NA;
  a[0] = expf(x);
  a[1] = tanhf(x);
  a[2] = rsqrtf(x);
  a[3] = exp2f(x);
  a[4] = erff(x);
  a[5] = cbrtf(x);
  a[6] = powf(x, y);
  a[7] = expf(x * 0.25f) * erff(y);
  a[8] = tanhf(y);
  float* f = fx + (size_t)t * NX;
  f[0] = logf(x);
  f[1] = log2f(x);
  f[2] = sinf(x);
  f[3] = cosf(x);
  f[4] = sqrtf(x);
  f[5] = sinf(x * y);
  f[6] = logf(fabsf(y));
  double* d = od + (size_t)t * ND;
  d[0] = exp(xd);
  d[1] = exp2(xd);
  d[2] = sin(xd);
  d[3] = cos(xd);
  d[4] = sqrt(xd);
  d[5] = sin(xd * yd) + exp(yd);
  double* s = ods + (size_t)t * NS;
  s[0] = log(xd);
  s[1] = log2(xd);
  s[2] = tanh(xd);
  s[3] = rsqrt(xd);
  s[4] = erf(xd);
  s[5] = cbrt(xd);
  s[6] = pow(xd, yd);
  s[7] = log(fabs(yd));
  s[8] = tanh(yd);
}
