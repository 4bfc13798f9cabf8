// Integer arithmetic and bit manipulation, one row of results per thread.
// Shift amounts, bit-field positions/lengths and funnel-shift counts come from the inputs at run time,
// so nothing is folded by the compiler; shifts by >= the register width go through inline PTX, where
// they are defined (shl/shr clamp the amount), unlike C++ where they are undefined.
#define N32 44
#define N64 24

__device__ __forceinline__ unsigned shl32(unsigned x, unsigned s) { unsigned r; asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(s)); return r; }
__device__ __forceinline__ unsigned shr32(unsigned x, unsigned s) { unsigned r; asm("shr.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(s)); return r; }
__device__ __forceinline__ int sar32(int x, unsigned s) { int r; asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(s)); return r; }
__device__ __forceinline__ unsigned long long shl64(unsigned long long x, unsigned s) { unsigned long long r; asm("shl.b64 %0, %1, %2;" : "=l"(r) : "l"(x), "r"(s)); return r; }
__device__ __forceinline__ long long sar64(long long x, unsigned s) { long long r; asm("shr.s64 %0, %1, %2;" : "=l"(r) : "l"(x), "r"(s)); return r; }
__device__ __forceinline__ unsigned bfe_u(unsigned x, unsigned pos, unsigned len) { unsigned r; asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len)); return r; }
__device__ __forceinline__ int bfe_s(int x, unsigned pos, unsigned len) { int r; asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len)); return r; }
__device__ __forceinline__ unsigned bfi(unsigned ins, unsigned base, unsigned pos, unsigned len) { unsigned r; asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(ins), "r"(base), "r"(pos), "r"(len)); return r; }
__device__ __forceinline__ unsigned lop3_96(unsigned a, unsigned b, unsigned c) { unsigned r; asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ unsigned lop3_e8(unsigned a, unsigned b, unsigned c) { unsigned r; asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ int mul24_hi(int a, int b) { int r; asm("mul24.hi.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ unsigned mad24_lo(unsigned a, unsigned b, unsigned c) { unsigned r; asm("mad24.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ long long bfe_s64(long long x, unsigned pos, unsigned len) { long long r; asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"(x), "r"(pos), "r"(len)); return r; }

extern "C" __global__ void int_bitops(const unsigned* __restrict__ a, const unsigned* __restrict__ b,
                                      const unsigned* __restrict__ s, const long long* __restrict__ p,
                                      const long long* __restrict__ q, unsigned* __restrict__ out32,
                                      unsigned long long* __restrict__ out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i], sh = s[i];
  int xi = (int)x, yi = (int)y;
  unsigned amt = sh & 63u;          // 0..63: shifts by >= 32 included
  unsigned pos = sh & 0xffu, len = (sh >> 8) & 0xffu;
  long long P = p[i], Q = q[i];     // Q != 0 and never (INT64_MIN, -1)
  unsigned long long PU = (unsigned long long)P, QU = (unsigned long long)Q;

  unsigned* o = out32 + (size_t)i * N32;
  o[0] = __umulhi(x, y);
  o[1] = (unsigned)__mulhi(xi, yi);
  o[2] = x * y;
  o[3] = __popc(x);
  o[4] = __clz(x);
  o[5] = __ffs(xi);
  o[6] = __brev(x);
  o[7] = __byte_perm(x, y, sh);                 // selector nibbles with the sign-replicate bit set at random
  o[8] = __funnelshift_l(x, y, sh);             // shift amount wraps mod 32
  o[9] = __funnelshift_r(x, y, sh);
  o[10] = __funnelshift_lc(x, y, amt);          // clamped at 32
  o[11] = __funnelshift_rc(x, y, amt);
  o[12] = (x >> (sh & 31u)) & ((1u << (len & 31u)) - 1u);   // bfe-like C pattern
  o[13] = bfe_u(x, pos, len);                   // pos/len 0..255: clamping rules of bfe
  o[14] = (unsigned)bfe_s(xi, pos, len);
  o[15] = bfi(y, x, pos, len);
  o[16] = (unsigned)__dp4a(xi, yi, (int)sh);
  o[17] = __dp4a(x, y, sh);                     // unsigned variant
  o[18] = (unsigned)__dp2a_lo(xi, yi, (int)sh);
  o[19] = __sad(xi, yi, sh);
  o[20] = __usad(x, y, sh);
  o[21] = (unsigned)__mul24(xi, yi);
  o[22] = __umul24(x, y);
  o[23] = (x & y) ^ (~x & sh) ^ ((y | ~sh) & (x ^ 0x5a5a5a5au));  // lop3 candidates
  o[24] = ~(x | y) & (sh ^ y) | (x & ~sh & y);
  o[25] = shl32(x, amt);
  o[26] = shr32(x, amt);
  o[27] = (unsigned)sar32(xi, amt);
  o[28] = x << (sh & 31u);
  o[29] = (unsigned)(xi >> (sh & 31u));
  o[30] = (unsigned)max(xi, yi);
  o[31] = min(x, y);
  o[32] = (unsigned)abs(xi);
  o[33] = (unsigned)__hadd(xi, yi);
  o[34] = (unsigned)__rhadd(xi, yi);
  o[35] = __uhadd(x, y);
  o[36] = y != 0u ? x / y : 0xdeadbeefu;
  o[37] = y != 0u ? x % y : 0xdeadbeefu;
  o[38] = (yi != 0 && !(xi == (int)0x80000000 && yi == -1)) ? (unsigned)(xi / yi) : 0xdeadbeefu;
  o[39] = (yi != 0 && !(xi == (int)0x80000000 && yi == -1)) ? (unsigned)(xi % yi) : 0xdeadbeefu;
  o[40] = lop3_96(x, y, sh);                    // a ^ b ^ c
  o[41] = lop3_e8(x, y, sh);                    // majority
  o[42] = (unsigned)mul24_hi(xi, yi);
  o[43] = mad24_lo(x, y, sh);

  unsigned long long* w = out64 + (size_t)i * N64;
  w[0] = (unsigned long long)(P / Q);
  w[1] = (unsigned long long)(P % Q);
  w[2] = PU / QU;
  w[3] = PU % QU;
  w[4] = (unsigned long long)((long long)xi * (long long)yi);   // mul.wide.s32
  w[5] = (unsigned long long)x * (unsigned long long)y;         // mul.wide.u32
  w[6] = (unsigned long long)__mul64hi(P, Q);
  w[7] = __umul64hi(PU, QU);
  w[8] = PU * QU;
  w[9] = __popcll(P);
  w[10] = __clzll(P);
  w[11] = __ffsll(P);
  w[12] = __brevll(PU);
  w[13] = shl64(PU, sh & 127u);                 // 0..127
  w[14] = (unsigned long long)sar64(P, sh & 127u);
  w[15] = PU >> (sh & 63u);
  w[16] = (unsigned long long)bfe_s64(P, pos, len);
  w[17] = (unsigned long long)max(P, Q);
  w[18] = min(PU, QU);
  w[19] = (unsigned long long)llabs(P);
  w[20] = (PU & ~QU) ^ (PU | (QU << 7)) ^ ~(PU >> 3);
  w[21] = PU + QU * (unsigned long long)(long long)yi;
  w[22] = (unsigned long long)(P / 7) + (unsigned long long)(P % 7);   // division by a constant (mul.hi sequence)
  w[23] = PU / 1000000007ull + PU % 10ull;
}
