// Hash/PRNG-style integer mixing: 64-bit mul.hi (__umul64hi, __mul64hi), mad.wide (u32 and s32 products
// plus a 64-bit addend), funnel shifts, __byte_perm, bit-field extract/insert, brev, clz, popc, bfind,
// dp2a, arithmetic shift right of negative values, signed/unsigned div and rem by powers of two and by
// constants, __mulhi/__umulhi. Each result goes to its own slot, and a few rounds of a xorshift-multiply
// mixer chain them so an early error propagates into the last slots.
#define NO 48
__device__ __forceinline__ unsigned bfind_u32(unsigned x) { unsigned r; asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ __forceinline__ unsigned bfind_s32(int x) { unsigned r; asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ __forceinline__ unsigned bfind_sa_u32(unsigned x) { unsigned r; asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r) : "r"(x)); return r; }
__device__ __forceinline__ unsigned bfind_u64(unsigned long long x) { unsigned r; asm("bfind.u64 %0, %1;" : "=r"(r) : "l"(x)); return r; }
__device__ __forceinline__ unsigned bfind_s64(long long x) { unsigned r; asm("bfind.s64 %0, %1;" : "=r"(r) : "l"(x)); return r; }
__device__ __forceinline__ unsigned bfe_u(unsigned x, unsigned p, unsigned l) { unsigned r; asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(p), "r"(l)); return r; }
__device__ __forceinline__ int bfe_s(int x, unsigned p, unsigned l) { int r; asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(p), "r"(l)); return r; }
__device__ __forceinline__ unsigned long long bfe_u64(unsigned long long x, unsigned p, unsigned l) { unsigned long long r; asm("bfe.u64 %0, %1, %2, %3;" : "=l"(r) : "l"(x), "r"(p), "r"(l)); return r; }
__device__ __forceinline__ unsigned bfi(unsigned a, unsigned b, unsigned p, unsigned l) { unsigned r; asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(a), "r"(b), "r"(p), "r"(l)); return r; }
__device__ __forceinline__ unsigned long long bfi64(unsigned long long a, unsigned long long b, unsigned p, unsigned l) { unsigned long long r; asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(r) : "l"(a), "l"(b), "r"(p), "r"(l)); return r; }
__device__ __forceinline__ unsigned long long madwide_u(unsigned a, unsigned b, unsigned long long c) { unsigned long long r; asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r) : "r"(a), "r"(b), "l"(c)); return r; }
__device__ __forceinline__ long long madwide_s(int a, int b, long long c) { long long r; asm("mad.wide.s32 %0, %1, %2, %3;" : "=l"(r) : "r"(a), "r"(b), "l"(c)); return r; }
__device__ __forceinline__ unsigned long long mad_hi_u64(unsigned long long a, unsigned long long b, unsigned long long c) { unsigned long long r; asm("mad.hi.u64 %0, %1, %2, %3;" : "=l"(r) : "l"(a), "l"(b), "l"(c)); return r; }
__device__ __forceinline__ int mad_hi_s32(int a, int b, int c) { int r; asm("mad.hi.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }

__device__ __forceinline__ unsigned long long mix(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

extern "C" __global__ void int_hash(const unsigned long long* __restrict__ in, const unsigned* __restrict__ sh,
                                    unsigned long long* __restrict__ out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  unsigned long long a = in[2 * t], b = in[2 * t + 1];
  unsigned s = sh[t];
  unsigned a32 = (unsigned)a, b32 = (unsigned)(b >> 17);
  int ia = (int)a32, ib = (int)b32;
  long long la = (long long)a, lb = (long long)b;
  unsigned long long* o = out + (size_t)t * NO;
  o[0] = __umul64hi(a, b);
  o[1] = (unsigned long long)__mul64hi(la, lb);
  o[2] = (unsigned long long)(unsigned)__mulhi(ia, ib) | ((unsigned long long)__umulhi(a32, b32) << 32);
  o[3] = madwide_u(a32, b32, b);
  o[4] = (unsigned long long)madwide_s(ia, ib, la);
  o[5] = (unsigned long long)a32 * b32 + a;                          // compiler's own mad.wide.u32
  o[6] = (unsigned long long)((long long)ia * ib - lb);               // mul.wide.s32 / sub
  o[7] = __funnelshift_l(a32, b32, s) | ((unsigned long long)__funnelshift_r(a32, b32, s) << 32);
  o[8] = __funnelshift_lc(a32, b32, s) | ((unsigned long long)__funnelshift_rc(a32, b32, s) << 32);
  o[9] = (a << (s & 63)) | (b >> ((s >> 6) & 63));
  o[10] = __byte_perm(a32, b32, s) | ((unsigned long long)__byte_perm(b32, a32, s >> 16) << 32);
  o[11] = bfe_u(a32, s & 31, (s >> 5) & 31) | ((unsigned long long)(unsigned)bfe_s(ib, (s >> 10) & 31, (s >> 15) & 31) << 32);
  o[12] = bfe_u64(a, s & 63, (s >> 6) & 63);
  o[13] = bfi(a32, b32, s & 31, (s >> 8) & 31) | ((unsigned long long)bfi(b32, a32, (s >> 16) & 255, s >> 24) << 32);
  o[14] = bfi64(a, b, s & 63, (s >> 8) & 63);
  o[15] = __brev(a32) | ((unsigned long long)__brev(b32) << 32);
  o[16] = __brevll(b);
  o[17] = __clz(ia) | ((unsigned long long)__clzll(lb) << 16) | ((unsigned long long)__popc(a32) << 32) | ((unsigned long long)__popcll(b) << 48);
  o[18] = bfind_u32(a32 >> (s & 31)) | ((unsigned long long)bfind_s32(ia >> (s & 31)) << 32);
  o[19] = bfind_sa_u32(b32 >> (s & 31)) | ((unsigned long long)bfind_u64(a >> (s & 63)) << 32);
  o[20] = bfind_s64(lb >> (s & 63)) | ((unsigned long long)(unsigned)(__ffs(ia) + 100 * __ffsll(lb)) << 32);
  o[21] = (unsigned)__dp2a_lo(ia, ib, (int)s) | ((unsigned long long)__dp2a_hi(a32, b32, s) << 32);
  o[22] = (unsigned)__dp2a_hi(ia, ib, -(int)s) | ((unsigned long long)__dp2a_lo(b32, a32, s) << 32);
  o[23] = (unsigned long long)(la >> (s & 63));                       // shr.s64 of negatives
  o[24] = (unsigned)(ia >> (s & 31)) | ((unsigned long long)(unsigned)(ib >> ((s >> 5) & 31)) << 32);
  o[25] = (unsigned)(ia / 8) | ((unsigned long long)(unsigned)(ia % 8) << 32);          // signed pow2
  o[26] = (unsigned long long)(la / 4096) ^ ((unsigned long long)(la % 65536) << 1);
  o[27] = (unsigned)(ia / 7) | ((unsigned long long)(unsigned)(ia % 7) << 32);           // constants
  o[28] = (unsigned)(ia / -3) | ((unsigned long long)(unsigned)(ib % -1000) << 32);
  o[29] = (a32 / 10u) | ((unsigned long long)(b32 % 641u) << 32);
  o[30] = a / 1000000007ull;
  o[31] = b % 1000000007ull;
  o[32] = (unsigned long long)(la / 10) ^ (unsigned long long)(lb % 12345);
  o[33] = (unsigned long long)(la / -65536) + (unsigned long long)(lb / 3);
  o[34] = mad_hi_u64(a, b, a ^ b);
  o[35] = (unsigned)mad_hi_s32(ia, ib, (int)s) | ((unsigned long long)(unsigned)__mul24(ia, ib) << 32);
  o[36] = (unsigned long long)(((unsigned __int128)a * b) >> 64) ^ (a * b);          // 128-bit product
  o[37] = (s != 0u) ? a / (unsigned long long)s + a % (unsigned long long)s : 0ull;    // run-time u64 divisor
  o[38] = (s >> 3 != 0u) ? (unsigned long long)(la / (long long)(int)(s >> 3) - la % (long long)(int)(s >> 3)) : 0ull;
  o[39] = (unsigned long long)__sad(ia, ib, s) | ((unsigned long long)__usad(a32, b32, s) << 32);
  // PRNG rounds: xorshift64*, splitmix finaliser, pcg32 step, murmur3 fmix32, a rotate-multiply mixer
  unsigned long long x = a | 1ull;
  for (int r = 0; r < 16; ++r) { x ^= x >> 12; x ^= x << 25; x ^= x >> 27; x *= 0x2545F4914F6CDD1Dull; }
  o[40] = x;
  o[41] = mix(a + b);
  unsigned long long st = a;
  unsigned pcg = 0;
  for (int r = 0; r < 8; ++r) {
    st = st * 6364136223846793005ull + (b | 1ull);
    unsigned xs = (unsigned)(((st >> 18u) ^ st) >> 27u), rot = (unsigned)(st >> 59u);
    pcg ^= (xs >> rot) | (xs << ((-rot) & 31));
  }
  o[42] = ((unsigned long long)pcg << 32) | (unsigned)st;
  unsigned h = a32 ^ b32;
  h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
  o[43] = h | ((unsigned long long)__funnelshift_l(h, h, 13) * 5u + 0xe6546b64u) << 32;
  unsigned long long acc = 0;
  for (int k = 0; k < 40; ++k) acc = (acc ^ o[k]) * 0x100000001B3ull + __popcll(o[k]) + __clzll(o[k] | 1);
  o[44] = acc;
  o[45] = __umul64hi(acc, 0x9E3779B97F4A7C15ull) + (unsigned long long)__mul64hi((long long)acc, -7ll);
  o[46] = (unsigned long long)((long long)acc >> 63) ^ (acc >> 63) ^ (unsigned long long)((int)acc >> 31);
  o[47] = mix(acc ^ x ^ o[42] ^ o[43]);
}
