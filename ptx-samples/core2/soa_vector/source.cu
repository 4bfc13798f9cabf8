// Struct-of-arrays particles through __restrict__ const pointers (ld.global.nc), explicit __ldg of scalars
// and of float4/int4/double2/float2/uchar4/short2 vectors, vector loads and stores (v2/v4 of 8-, 16-, 32- and
// 64-bit elements), and byte/halfword accesses at odd (but naturally aligned) addresses: a packed record
// of 7 bytes per element read and written byte by byte, shorts at 2-byte-aligned offsets that are not
// 4-byte aligned, and char2/short2 stores into interleaved slots.
struct __align__(16) Soa {
  const float* x; const float* y; const float* z; const float* m;
};
extern "C" __global__ void soa_vector(const float* __restrict__ px, const float* __restrict__ py,
                                      const float* __restrict__ pz, const float* __restrict__ pm,
                                      const float4* __restrict__ f4, const int4* __restrict__ i4,
                                      const double2* __restrict__ d2, const unsigned char* __restrict__ rec,
                                      const short* __restrict__ sh,
                                      float4* __restrict__ of4, int4* __restrict__ oi4, double2* __restrict__ od2,
                                      unsigned char* __restrict__ orec, short* __restrict__ osh,
                                      float* __restrict__ of, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  Soa s = {px, py, pz, pm};
  // SoA gather of a neighbourhood through the read-only path
  float fx = 0.f, fy = 0.f, fz = 0.f;
  for (int k = -2; k <= 2; ++k) {
    int j = (t + k + n) % n;
    float dx = s.x[j] - s.x[t], dy = s.y[j] - s.y[t], dz = __ldg(&s.z[j]) - __ldg(&s.z[t]);
    float w = __ldg(&s.m[j]) / (dx * dx + dy * dy + dz * dz + 1.0f);
    fx = fmaf(w, dx, fx); fy = fmaf(w, dy, fy); fz = fmaf(w, dz, fz);
  }
  // vector loads
  float4 a = __ldg(&f4[t]);
  float4 b = f4[(t * 5 + 3) % n];
  int4 c = __ldg(&i4[t]);
  int4 e = i4[n - 1 - t];
  double2 d = __ldg(&d2[t]);
  double2 d1 = d2[(t + 1) % n];
  float2 h2 = __ldg((const float2*)f4 + 2 * t + 1);           // the upper half of element t
  uchar4 u4 = __ldg((const uchar4*)rec + t);                    // 4-byte view of the byte records
  short2 s2 = __ldg((const short2*)sh + t);
  of4[t] = make_float4(fx + a.x * b.w, fy + a.y * b.z, fz + a.z * b.y, a.w * b.x + h2.x - h2.y);
  oi4[t] = make_int4(c.x + e.w, c.y ^ e.z, c.z - e.y, (c.w >> 3) + (e.x << 1) + u4.x + u4.w * s2.y);
  od2[t] = make_double2(d.x * d1.y + (double)s2.x, d.y - d1.x * (double)u4.y);
  // 7-byte packed records: element t lives at rec[7t .. 7t+6] (odd addresses for odd t)
  const unsigned char* r = rec + 7 * t;
  unsigned char* w = orec + 7 * t;
  unsigned sum = 0;
  for (int k = 0; k < 7; ++k) { unsigned char v = r[k]; sum += v * (k + 1); w[6 - k] = (unsigned char)(v ^ (0x11 * k)); }
  const signed char* rs = (const signed char*)r;
  int ssum = rs[0] + rs[3] * rs[6] - rs[1];
  // shorts at offsets 3t+1 (2-byte aligned, often not 4-byte aligned); a signed-short round trip
  const short* q = sh + 3 * t + 1;
  short s0 = q[0], s1 = __ldg(q + 1), s2b = q[2];
  short* oq = osh + 3 * t + 1;
  oq[0] = (short)(s0 + s1);
  oq[1] = (short)(s1 * s2b);
  oq[2] = (short)(s2b >> 2);
  // char2 and short2 stores into the tail areas
  reinterpret_cast<char2*>(orec + 7 * n)[t] = make_char2((char)(sum & 0x7f), (char)ssum);
  reinterpret_cast<short2*>(osh + 3 * n + 1 + 1)[t] = make_short2((short)(s0 - s2b), (short)(u4.z + s2.x));   // 4-aligned
  float* f = of + (size_t)t * 4;
  f[0] = (float)sum + (float)ssum;
  f[1] = (float)(s0 + s1 + s2b) * 0.25f;
  f[2] = a.x + a.y + a.z + a.w;
  f[3] = (float)(c.x & 0xffff) + (float)d.y;
}
