// Kahan-compensated dot product and a Horner polynomial, all in double
extern "C" __global__ void kahan_dot(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ out, long long n) {
  double sum = 0.0, comp = 0.0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {
    double y = a[i] * b[i] - comp;
    double t = sum + y;
    comp = (t - sum) - y;
    sum = t;
  }
  atomicAdd(out, sum);
}

__constant__ double poly[7] = {1.0, -0.5, 1.0 / 6.0, -1.0 / 24.0, 1.0 / 120.0, -1.0 / 720.0, 1.0 / 5040.0};

extern "C" __global__ void horner(const double* __restrict__ x, double* __restrict__ y, float* __restrict__ yf,
                                  long long* __restrict__ yi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i], r = poly[6];
  for (int k = 5; k >= 0; --k) r = fma(r, v, poly[k]);
  double q = v / (1.0 + fabs(v));
  double s = sqrt(fabs(q)) + 1.0 / (v * v + 1.0);
  double m = fmax(r, s) - fmin(r, -s);
  if (v < 0.0 || !(v == v)) m = -m;            // NaN test -> setp with unordered compare
  int hi = __double2hiint(m), lo = __double2loint(m);
  double rebuilt = __hiloint2double(hi ^ 0x80000000, lo);
  y[i] = m + rebuilt * 0x1.8p-3 + 1e-300;
  yf[i] = (float)m;                            // cvt.rn.f32.f64
  yi[i] = (long long)m + (long long)(unsigned)i + (long long)(double)i;   // cvt.rzi.s64.f64, cvt.rn.f64.s32
}
