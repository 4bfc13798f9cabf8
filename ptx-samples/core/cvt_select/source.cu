// Integer width conversions (sign/zero extension, truncation, narrow loads and stores), unsigned 64-bit to
// float/double, double<->float, __saturatef, and comparisons/selection with ordered and unordered
// predicates (NaN paths): setp.{lt,le,eq,ne,ge,gt} vs {ltu,leu,equ,neu,geu,gtu}, setp.nan/num, selp.
#define NL 16
#define NF 10
#define ND 6
#define NI 20
extern "C" __global__ void cvt_select(const long long* __restrict__ L, const signed char* __restrict__ C8,
                                      const unsigned char* __restrict__ U8, const short* __restrict__ S16,
                                      const unsigned short* __restrict__ U16, const float* __restrict__ F,
                                      const float* __restrict__ G, const double* __restrict__ D,
                                      long long* __restrict__ ol, float* __restrict__ of, double* __restrict__ od,
                                      int* __restrict__ oi, signed char* __restrict__ o8,
                                      unsigned short* __restrict__ o16, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  long long l = L[t];
  unsigned long long ul = (unsigned long long)l;
  signed char c = C8[t];
  unsigned char uc = U8[t];
  short s = S16[t];
  unsigned short us = U16[t];
  float f = F[t], g = G[t];
  double d = D[t];

  long long* a = ol + (size_t)t * NL;
  a[0] = (signed char)l;        a[1] = (unsigned char)l;     a[2] = (short)l;    a[3] = (unsigned short)l;
  a[4] = (int)l;                a[5] = (unsigned)l;          a[6] = c;           a[7] = uc;
  a[8] = s;                     a[9] = us;                   a[10] = (unsigned short)c;   a[11] = (signed char)us;
  a[12] = c * uc + s * us;      a[13] = (short)(s * 3 + c);  a[14] = (long long)(unsigned)(int)c;
  a[15] = (long long)((ul >> 40) ^ (unsigned long long)(int)s);

  float* b = of + (size_t)t * NF;
  b[0] = (float)ul;       b[1] = (float)l;        b[2] = (float)(unsigned)l;   b[3] = (float)c + (float)us;
  b[4] = __saturatef(f);  b[5] = __saturatef(f * 0.5f + 0.25f);
  b[6] = (float)d;        b[7] = f < g ? f : g;   b[8] = !(f >= g) ? f : g;    b[9] = f != f ? -1.0f : f;

  double* e = od + (size_t)t * ND;
  e[0] = (double)ul;  e[1] = (double)l;  e[2] = (double)f;  e[3] = (double)(float)d;
  e[4] = d < (double)f ? d : (double)f;
  e[5] = isnan(d) ? 1.5 : d * 0.5;

  int* k = oi + (size_t)t * NI;
  k[0] = f < g;   k[1] = f <= g;  k[2] = f == g;  k[3] = f != g;  k[4] = f >= g;  k[5] = f > g;
  k[6] = !(f < g); k[7] = !(f <= g); k[8] = !(f == g); k[9] = !(f != g); k[10] = !(f >= g); k[11] = !(f > g);
  k[12] = isnan(f) | (isinf(f) << 1) | (isfinite(f) << 2) | ((signbit(f) != 0) << 3);
  k[13] = (f != f || g != g) + 2 * (f > g) + 4 * (f < g || f > g);
  k[14] = isnan(d) + 2 * (isinf(d) != 0) + 4 * (d < 0.0);
  k[15] = (c < 0) + 2 * (uc > 200) + 4 * (s < (short)us) + 8 * (l < 0) + 16 * (ul > 0x8000000000000000ull);
  k[16] = (f < g) != (d < (double)g);
  k[17] = (int)(f < g) - (int)(g < f);
  k[18] = f == f ? (g == g ? 0 : 1) : 2;
  k[19] = (l & 1) ? (int)c : (int)us;

  o8[t] = (signed char)(l >> 3);
  o16[t] = (unsigned short)(ul * 3ull + (unsigned long long)uc);
}
