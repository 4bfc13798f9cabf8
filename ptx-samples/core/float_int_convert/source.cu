// float <-> integer conversions with every rounding intrinsic, saturation of out-of-range values and NaN,
// fminf/fmaxf/fmin/fmax with NaN and signed zeros, copysign, and the float rounding functions.
#define NF 30
#define NI 18
#define NL 16
#define ND 14
extern "C" __global__ void float_int_convert(const float* __restrict__ F, const float* __restrict__ G,
                                             const double* __restrict__ D, const double* __restrict__ E,
                                             const int* __restrict__ IV, const long long* __restrict__ LV,
                                             float* __restrict__ of, int* __restrict__ oi,
                                             long long* __restrict__ ol, double* __restrict__ od, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float f = F[t], g = G[t];
  double d = D[t], e = E[t];
  int iv = IV[t];
  long long lv = LV[t];
  unsigned uv = (unsigned)iv;
  unsigned long long ulv = (unsigned long long)lv;

  float* a = of + (size_t)t * NF;
  a[0] = fminf(f, g);            a[1] = fmaxf(f, g);          a[2] = copysignf(f, g);    a[3] = fabsf(f);  a[4] = -f;
  a[5] = __int2float_rn(iv);     a[6] = __int2float_rz(iv);   a[7] = __int2float_rd(iv);   a[8] = __int2float_ru(iv);
  a[9] = __uint2float_rn(uv);    a[10] = __uint2float_rz(uv); a[11] = __uint2float_rd(uv); a[12] = __uint2float_ru(uv);
  a[13] = __ll2float_rn(lv);     a[14] = __ll2float_rz(lv);   a[15] = __ll2float_rd(lv);   a[16] = __ll2float_ru(lv);
  a[17] = __ull2float_rn(ulv);   a[18] = __ull2float_rz(ulv); a[19] = __ull2float_rd(ulv); a[20] = __ull2float_ru(ulv);
  a[21] = __double2float_rn(d);  a[22] = __double2float_rz(d); a[23] = __double2float_rd(d); a[24] = __double2float_ru(d);
  a[25] = rintf(f);              a[26] = floorf(f);           a[27] = ceilf(f);            a[28] = truncf(f);
  a[29] = roundf(f);

  int* b = oi + (size_t)t * NI;
  b[0] = __float2int_rn(f);   b[1] = __float2int_rz(f);   b[2] = __float2int_rd(f);   b[3] = __float2int_ru(f);
  b[4] = (int)__float2uint_rn(f); b[5] = (int)__float2uint_rz(f); b[6] = (int)__float2uint_rd(f); b[7] = (int)__float2uint_ru(f);
  b[8] = __double2int_rn(d);  b[9] = __double2int_rz(d);  b[10] = __double2int_rd(d); b[11] = __double2int_ru(d);
  b[12] = (int)__double2uint_rn(d); b[13] = (int)__double2uint_rz(d); b[14] = (int)__double2uint_rd(d); b[15] = (int)__double2uint_ru(d);
  b[16] = __float_as_int(f) ^ __float_as_int(g);
  b[17] = (int)__double2hiint(d) + __double2loint(e);

  long long* c = ol + (size_t)t * NL;
  c[0] = __float2ll_rn(f);   c[1] = __float2ll_rz(f);   c[2] = __float2ll_rd(f);   c[3] = __float2ll_ru(f);
  c[4] = (long long)__float2ull_rn(f); c[5] = (long long)__float2ull_rz(f); c[6] = (long long)__float2ull_rd(f); c[7] = (long long)__float2ull_ru(f);
  c[8] = __double2ll_rn(d);  c[9] = __double2ll_rz(d);  c[10] = __double2ll_rd(d); c[11] = __double2ll_ru(d);
  c[12] = (long long)__double2ull_rn(d); c[13] = (long long)__double2ull_rz(d); c[14] = (long long)__double2ull_rd(d); c[15] = (long long)__double2ull_ru(d);

  double* h = od + (size_t)t * ND;
  h[0] = __ll2double_rn(lv);   h[1] = __ll2double_rz(lv);   h[2] = __ll2double_rd(lv);   h[3] = __ll2double_ru(lv);
  h[4] = __ull2double_rn(ulv); h[5] = __ull2double_rz(ulv); h[6] = __ull2double_rd(ulv); h[7] = __ull2double_ru(ulv);
  h[8] = (double)f;
  h[9] = fmin(d, e);  h[10] = fmax(d, e);  h[11] = copysign(d, e);
  h[12] = __int2double_rn(iv);
  h[13] = __uint2double_rn(uv);
}
