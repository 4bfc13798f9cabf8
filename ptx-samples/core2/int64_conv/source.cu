// 64-bit integer arithmetic and conversions: signed/unsigned 64-bit div and rem (negative operands,
// INT64_MIN, run-time divisors), mixed-sign comparisons as C++ defines them (int vs unsigned, long long vs
// unsigned, unsigned long long vs int), 64-bit min/max/abs, int64 <-> double and float in every rounding
// mode (out-of-range and NaN saturate as the PTX cvt does: the intrinsics are used, not C casts, where C
// would be undefined), and 32 <-> 64-bit widening and narrowing.
#define NO 40
extern "C" __global__ void int64_conv(const long long* __restrict__ A, const long long* __restrict__ B,
                                      const double* __restrict__ D, const int* __restrict__ I,
                                      unsigned long long* __restrict__ out, double* __restrict__ outd,
                                      float* __restrict__ outf, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  long long a = A[t], b = B[t];
  unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
  double d = D[t];
  int i = I[t];
  unsigned u = (unsigned)I[(t + 1) % n];
  unsigned long long* o = out + (size_t)t * NO;
  bool bad_s = (b == 0) || (a == LLONG_MIN && b == -1);
  o[0] = bad_s ? 0xdeadull : (unsigned long long)(a / b);
  o[1] = bad_s ? 0xdeadull : (unsigned long long)(a % b);
  o[2] = ub ? ua / ub : 0xbeefull;
  o[3] = ub ? ua % ub : 0xbeefull;
  o[4] = (unsigned long long)(a / 1000) ^ ((unsigned long long)(a % 1000) << 40);
  o[5] = ua / 3ull + ua % 10ull;
  o[6] = (unsigned long long)(a >> 17) + (ua >> 17);
  o[7] = (unsigned long long)(i < u) | (unsigned long long)(a < u) << 1 | (unsigned long long)(ua < (unsigned long long)i) << 2 |
         (unsigned long long)(a < (long long)ub) << 3 | (unsigned long long)(ua > ub) << 4 | (unsigned long long)(i >= (long long)u) << 5 |
         (unsigned long long)((unsigned)i > u) << 6 | (unsigned long long)(a <= i) << 7 | (unsigned long long)(ua >= (unsigned)i) << 8;
  o[8] = (unsigned long long)max(a, b) ^ (unsigned long long)min(a, b) << 1;
  o[9] = max(ua, ub) - min(ua, ub);
  o[10] = (unsigned long long)llabs(a) + (unsigned long long)abs(i);
  o[11] = (unsigned long long)(a * b) ^ (unsigned long long)((long long)i * (long long)(int)u);
  o[12] = (unsigned long long)(long long)i + (unsigned long long)u + (unsigned long long)(short)i + (unsigned long long)(unsigned char)u;
  o[13] = (unsigned long long)(int)a | ((unsigned long long)(unsigned)(b >> 32) << 32);
  o[14] = (unsigned long long)__double2ll_rn(d);
  o[15] = (unsigned long long)__double2ll_rz(d);
  o[16] = (unsigned long long)__double2ll_rd(d);
  o[17] = (unsigned long long)__double2ll_ru(d);
  o[18] = __double2ull_rn(d);
  o[19] = __double2ull_rz(d);
  o[20] = __double2ull_rd(d);
  o[21] = __double2ull_ru(d);
  o[22] = (unsigned long long)__float2ll_rn((float)d) ^ (__float2ull_rz((float)d) << 1);
  o[23] = (unsigned long long)__float2ll_rd((float)d) + __float2ull_ru((float)d);
  o[24] = (unsigned long long)(unsigned)__double2int_rn(d) | ((unsigned long long)__double2uint_rz(d) << 32);
  o[25] = (unsigned long long)(unsigned)__double2int_rd(d) | ((unsigned long long)__double2uint_ru(d) << 32);
  o[26] = (unsigned long long)(long long)(double)(a >> (t & 63));          // exactness of the round trip
  o[27] = (unsigned long long)(ua & 0x001fffffffffffffull) + (unsigned long long)(double)(ua & 0x001fffffffffffffull);
  o[28] = (unsigned long long)(i / -7) ^ ((unsigned long long)(unsigned)(i % -7) << 32);
  o[29] = (unsigned long long)((long long)i * 1000000007ll / 998244353ll);
  o[30] = (unsigned long long)(a < 0) + 2ull * (b <= a) + 4ull * (ua <= ub) + 8ull * (a == b) + 16ull * (a != -b);
  o[31] = __ffsll(a) | (unsigned long long)__clzll(b) << 8 | (unsigned long long)__popcll(a ^ b) << 16;
  o[32] = (unsigned long long)(a + b) ^ (unsigned long long)(a - b) << 1;                   // wrap (u64 arithmetic)
  o[33] = (ua << (u & 63)) ^ (ua >> ((u >> 8) & 63)) ^ (unsigned long long)(a >> ((u >> 16) & 63));
  double* od = outd + (size_t)t * 10;
  od[0] = __ll2double_rn(a);
  od[1] = __ll2double_rz(a);
  od[2] = __ll2double_rd(a);
  od[3] = __ll2double_ru(a);
  od[4] = __ull2double_rn(ua);
  od[5] = __ull2double_rz(ua);
  od[6] = __ull2double_rd(ub);
  od[7] = __ull2double_ru(ub);
  od[8] = (double)i + (double)u;
  od[9] = (double)(a / 3) * 0.5 - (double)(ua % 1000003ull);
  float* of = outf + (size_t)t * 8;
  of[0] = __ll2float_rn(a);
  of[1] = __ll2float_rz(a);
  of[2] = __ll2float_rd(b);
  of[3] = __ll2float_ru(b);
  of[4] = __ull2float_rn(ua);
  of[5] = __ull2float_rz(ub);
  of[6] = __ull2float_rd(ua);
  of[7] = __ull2float_ru(ub);
}
