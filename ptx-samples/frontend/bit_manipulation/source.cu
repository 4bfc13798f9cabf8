extern "C" __global__ void bits32(const unsigned* __restrict__ a, const unsigned* __restrict__ b, unsigned* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned* o = out + 12 * i;
  o[0] = __popc(x) + __clz(y) + __ffs((int)x);
  o[1] = __brev(x);
  o[2] = __byte_perm(x, y, 0x5140) ^ __byte_perm(x, 0, 0x0123);
  o[3] = __funnelshift_l(x, y, i) + __funnelshift_r(x, y, i & 7) + __funnelshift_lc(x, y, i);
  o[4] = (x >> (y & 31)) & ((1u << 5) - 1);                    // bfe-like
  o[5] = (x & ~(0xffu << 8)) | ((y & 0xffu) << 8);              // bfi-like
  o[6] = (unsigned)__dp4a((int)x, (int)y, 7) + __dp4a(x, y, 1u) + (unsigned)__dp2a_lo((int)x, (int)y, 0);
  o[7] = __umulhi(x, y) + (unsigned)__mulhi((int)x, (int)y);
  o[8] = __sad((int)x, (int)y, 3u) + __usad(x, y, 1u);
  o[9] = (unsigned)__hadd((int)x, (int)y) + (unsigned)__rhadd((int)x, (int)y) + __uhadd(x, y) + __urhadd(x, y);
  o[10] = __vadd4(x, y) ^ __vcmpgtu4(x, y) ^ __vabsdiffu4(x, y);
  o[11] = (unsigned)(((int)x << 7) >> 27) + (x >> 31) + (unsigned)((int)y >> 31);  // sign-extending extract
}

extern "C" __global__ void bits64(const unsigned long long* __restrict__ a, const long long* __restrict__ s,
                                  unsigned long long* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long x = a[i], d = a[(i + 1) % n] | 1ull;
  long long p = s[i], q = s[(i + 3) % n];
  if (q == 0) q = -7;
  out[6 * i + 0] = x / d + x % d;                       // 64-bit unsigned div/rem
  out[6 * i + 1] = (unsigned long long)(p / q) ^ (unsigned long long)(p % q);  // signed
  out[6 * i + 2] = (unsigned long long)__popcll(x) + __clzll((long long)d) + __ffsll((long long)x);
  out[6 * i + 3] = __brevll(x) ^ __umul64hi(x, d) ^ (unsigned long long)__mul64hi(p, q);
  out[6 * i + 4] = (x << (i & 63)) | (x >> (64 - (i & 63)));   // rotate
  out[6 * i + 5] = (x / 10ull) + (unsigned long long)(p / 1000) + (x % 7ull);  // division by constants
}
