// Atomics on global and shared memory whose final values do not depend on the order in which the
// threads' operations land: integer sums, min/max, and/or/xor, inc/dec with wrap (and the sums of the
// values they return, a fixed multiset), tickets, exchange chains (sum of the old values plus the final
// value), CAS loops for commutative updates, a warp-leader spin lock, and float/double sums over values
// whose every partial sum is exact (multiples of 0.25 and 2^-10 of bounded size).
extern "C" __global__ void atomics(const int* __restrict__ vi, const unsigned* __restrict__ vu,
                                   const float* __restrict__ vf, const double* __restrict__ vd,
                                   unsigned* g, float* gf, double* gd, unsigned long long* gl) {
  __shared__ unsigned hist[16];
  __shared__ int smin, smax, sexch;
  __shared__ unsigned sand, sor, sxor, sinc, sdec;
  __shared__ float sfsum;
  const int t = threadIdx.x;
  const int tid = blockIdx.x * blockDim.x + t;
  if (t < 16) hist[t] = 0;
  if (t == 0) {
    smin = 0x7fffffff; smax = (int)0x80000000; sexch = 0;
    sand = 0xffffffffu; sor = 0; sxor = 0; sinc = 0; sdec = 0; sfsum = 0.0f;
  }
  __syncthreads();

  const int a = vi[tid];
  const unsigned u = vu[tid];
  const float f = vf[tid];
  const double d = vd[tid];

  // global integer atomics
  atomicAdd((int*)&g[0], a);
  atomicMin((int*)&g[1], a);
  atomicMax((int*)&g[2], a);
  atomicMin(&g[3], u);
  atomicMax(&g[4], u);
  atomicAnd(&g[5], u | ~(1u << (u & 31u)));
  atomicOr(&g[6], 1u << (u >> 27));
  atomicXor(&g[7], u);
  unsigned ri = atomicInc(&g[8], 100u);        // wraps to 0 after 100
  atomicAdd(&g[9], ri);
  unsigned rd = atomicDec(&g[10], 37u);        // wraps to 37 below 0
  atomicAdd(&g[11], rd);
  unsigned ticket = atomicAdd(&g[12], 1u);
  atomicAdd(&g[13], ticket);
  atomicAdd_system(&g[19], u & 0xffu);
  atomicOr_block(&g[20], 1u << (t & 31));     // block scope on global memory

  // CAS loop: multiply by an odd factor (commutative, associative mod 2^32)
  unsigned old = *(volatile unsigned*)&g[15], assumed;   // volatile = relaxed.sys: no plain read racing the atomics
  do {
    assumed = old;
    old = atomicCAS(&g[15], assumed, assumed * (2u * u + 1u));
  } while (old != assumed);
  // CAS loop: float max on the bit pattern (init -inf)
  old = *(volatile unsigned*)&g[16];
  while (__uint_as_float(old) < f) {
    assumed = old;
    old = atomicCAS(&g[16], assumed, __float_as_uint(f));
    if (old == assumed) break;
  }

  // shared atomics
  atomicAdd(&hist[u & 15u], 1u);
  atomicMin(&smin, a);
  atomicMax(&smax, a);
  atomicAnd(&sand, u | 0xff00ff00u);
  atomicOr(&sor, u & 0x00ff00ffu & (0x11111111u << (t & 3)));
  atomicXor(&sxor, u);
  atomicInc(&sinc, 9u);
  atomicDec(&sdec, 12u);
  atomicAdd_block(&sfsum, f);
  int prev = atomicExch(&sexch, a);
  atomicAdd((int*)&g[14], prev);

  // float/double sums, global
  atomicAdd(&gf[0], f);
  atomicAdd(&gd[0], d);
  atomicAdd(&gl[0], (unsigned long long)u << 8);
  atomicMin((long long*)&gl[1], (long long)a * 1000003ll);
  atomicMax(&gl[2], (unsigned long long)u * 0x100000001ull);
  unsigned long long o64 = *(volatile unsigned long long*)&gl[3], as64;
  do {
    as64 = o64;
    o64 = atomicCAS(&gl[3], as64, as64 ^ ((unsigned long long)u << (t & 31)));
  } while (o64 != as64);

  // warp-leader spin lock around a plain read-modify-write
  if ((t & 31) == 0) {
    while (atomicCAS(&g[17], 0u, 1u) != 0u) { }
    __threadfence();
    volatile unsigned* cnt = &g[18];
    *cnt = *cnt + 1u + (unsigned)blockIdx.x;
    __threadfence();
    atomicExch(&g[17], 0u);
  }

  __syncthreads();
  if (t < 16) atomicAdd(&g[32 + t], hist[t]);
  if (t == 0) {
    atomicAdd((int*)&g[14], sexch);              // sum of exchanged-out values + final = sum of inputs
    atomicMin((int*)&g[21], smin);
    atomicMax((int*)&g[22], smax);
    atomicAnd(&g[23], sand);
    atomicOr(&g[24], sor);
    atomicXor(&g[25], sxor);
    atomicAdd(&g[26], sinc);
    atomicAdd(&g[27], sdec);
    atomicAdd(&gf[1], sfsum);
  }
}
