// Control flow an interpreter has to get right: dense 12-case switches, a brx.idx jump table (inline PTX), nested
// loops left with goto (to the end of an outer iteration and out of all of them), recursion through
// function pointers (a __device__ table of .func addresses and pointers chosen at run time), a while loop
// with a per-lane trip count of 0..1000, and whole warps returning early before a __syncthreads that the
// remaining warps then use.
#define NO 9
typedef int (*op_t)(int, int);
__device__ __noinline__ int op_a(int n, int d);
__device__ __noinline__ int op_b(int n, int d);
__device__ __noinline__ int op_c(int n, int d);
__device__ op_t g_ops[3] = {op_a, op_b, op_c};

__device__ __noinline__ int op_a(int n, int d) {
  if (n <= 0) return d;
  return (int)(3u * (unsigned)g_ops[(unsigned)(n + d) % 3u](n - 1, d + 1) + 1u);
}
__device__ __noinline__ int op_b(int n, int d) {
  if (n <= 0) return -d;
  op_t next = (d & 1) ? op_a : op_c;
  return next(n - 1, (int)((unsigned)d * 2u + 1u)) ^ (n << 4);
}
__device__ __noinline__ int op_c(int n, int d) {
  if (n <= 0) return (int)((unsigned)d * (unsigned)d);
  return g_ops[(unsigned)(n * 7 + d) % 3u](n - 1, d - 3) - n;
}

__device__ __noinline__ int dense_switch(int sel, int a, int b) {
  int r;
  switch (sel) {
    case 0:  r = a + b; break;
    case 1:  r = (int)((unsigned)a - (unsigned)b * 3u); break;
    case 2:  r = (int)((unsigned)a * (unsigned)b + 7u); break;
    case 3:  r = (a << 3) ^ b; break;
    case 4:  r = a / (b | 1); break;
    case 5:  r = __popc(a) * 100 + b; break;
    case 6:  r = max(a, b) - min(a, b); break;
    case 7:  r = (a & 0xff) * (b & 0xff); break;
    case 8:  r = __brev(a) + b; break;
    case 9:  r = a % 97 - b % 13; break;
    case 10: r = (int)((unsigned)a >> 5) | b; break;
    case 11: r = ~a + __clz(b); break;
    default: r = -12345; break;
  }
  return r;
}

// nvcc 13 lowers even large dense switches to compare trees, never brx.idx: a 12-way jump table in inline
// PTX (in a __noinline__ function so that its labels appear once in the module).
__device__ __noinline__ int jump_table(unsigned sel, int a) {
  int r;
  asm("{\n\t"
      "JT_targets: .branchtargets JT_0, JT_1, JT_2, JT_3, JT_4, JT_5, JT_6, JT_7, JT_8, JT_9, JT_10, JT_11;\n\t"
      "brx.idx %1, JT_targets;\n"
      "JT_0:\n\t add.s32 %0, %2, 1000;\n\t bra.uni JT_end;\n"
      "JT_1:\n\t mul.lo.s32 %0, %2, 3;\n\t bra.uni JT_end;\n"
      "JT_2:\n\t xor.b32 %0, %2, 0x5555;\n\t bra.uni JT_end;\n"
      "JT_3:\n\t shl.b32 %0, %2, 4;\n\t bra.uni JT_end;\n"
      "JT_4:\n\t not.b32 %0, %2;\n\t bra.uni JT_end;\n"
      "JT_5:\n\t popc.b32 %0, %2;\n\t bra.uni JT_end;\n"
      "JT_6:\n\t neg.s32 %0, %2;\n\t bra.uni JT_end;\n"
      "JT_7:\n\t shr.s32 %0, %2, 3;\n\t bra.uni JT_end;\n"
      "JT_8:\n\t brev.b32 %0, %2;\n\t bra.uni JT_end;\n"
      "JT_9:\n\t and.b32 %0, %2, 0xff00ff;\n\t bra.uni JT_end;\n"
      "JT_10:\n\t clz.b32 %0, %2;\n\t bra.uni JT_end;\n"
      "JT_11:\n\t sub.s32 %0, 77, %2;\n"
      "JT_end:\n\t"
      "}"
      : "=r"(r) : "r"(sel), "r"(a));
  return r;
}

extern "C" __global__ void control_flow(const int* __restrict__ in, const int* __restrict__ trip,
                                        int* __restrict__ out, int* __restrict__ blk) {
  __shared__ int s_sum[128];
  __shared__ int s_flag;
  const int t = threadIdx.x, w = t >> 5;
  const int g = blockIdx.x * blockDim.x + t;
  int* o = out + (size_t)g * NO;
  const int v = in[g];
  if (t == 0) s_flag = 0;
  s_sum[t] = 0;
  __syncthreads();  // orders the initial stores before the atomicAdds and reads below (ptxrun's checker found the race)

  // dense switch, inline (and through a call), selector from the data, including out-of-range values
  unsigned acc = 0;
  for (int i = 0; i < 14; ++i) {
    int sel = (v + i * 5) % 14;                          // 12 and 13 hit default, negatives too
    if (v < 0) sel = -sel;
    int r;
    switch (sel) {
      case 0:  r = v + i; break;
      case 1:  r = (int)((unsigned)v * 3u - (unsigned)i); break;
      case 2:  r = v ^ (i << 7); break;
      case 3:  r = v >> (i & 7); break;
      case 4:  r = (v & 0xffff) * i; break;
      case 5:  r = v / (i + 1); break;
      case 6:  r = __popc(v) + i * 11; break;
      case 7:  r = v % (i + 2); break;
      case 8:  r = min(v, i * 1000); break;
      case 9:  r = ~v + i; break;
      case 10: r = (int)(((unsigned)v << 2) + ((unsigned)i << 9)); break;
      case 11: r = __clz(v + i); break;
      default: r = -1; break;
    }
    acc = acc * 31u + (unsigned)r;
  }
  o[0] = (int)acc;
  o[1] = (int)((unsigned)dense_switch(v & 15, v, g) + (unsigned)dense_switch((v >> 4) % 12, g, v));
  {
    unsigned jt = 0;
    for (unsigned i = 0; i < 12; ++i) jt = jt * 7u + (unsigned)jump_table(((unsigned)v + i * 5u) % 12u, v ^ (int)i);
    o[8] = (int)jt;
  }

  // nested loops with goto: skip to the next outer iteration, or leave everything
  int found = -1, work = 0;
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      for (int c = 0; c < 8; ++c) {
        int h = (int)((unsigned)(v ^ (a * 73 + b * 9 + c)) * 0x45d9f3bu);
        work += h & 7;
        if (((h >> 8) & 0x3f) == 0x2a) { found = a * 64 + b * 8 + c; goto done; }
        if (((h >> 4) & 0x1f) == 3) goto next_a;
        if ((h & 0xff) == 0x11) break;
      }
    }
  next_a:;
  }
done:
  o[2] = found;
  o[3] = work;

  // recursion through function pointers
  op_t start = (v & 2) ? op_b : g_ops[(unsigned)v % 3u];
  o[4] = start((v & 7) + 3, v & 0xff);

  // while loop with a per-lane trip count 0..1000
  int n = trip[g];
  unsigned h = (unsigned)v;
  int steps = 0;
  while (n > 0) {
    h = h * 1103515245u + 12345u;
    n -= 1 + (int)((h >> 16) & 1u);
    ++steps;
  }
  o[5] = (int)h;
  o[6] = steps;

  // whole warps leave before the barrier (warp-uniform condition from the data of lane 0)
  int lead = __shfl_sync(0xffffffffu, v, 0);
  if (w != 0 && (lead & 0x10)) {
    o[7] = -w;
    return;
  }
  s_sum[t] = v & 0xffff;
  atomicAdd(&s_flag, 1);
  __syncthreads();
  int sum = 0;
  for (int i = 0; i < 128; ++i) sum += s_sum[i];    // exited warps' slots stay 0
  o[7] = sum;
  if (t == 0) blk[blockIdx.x] = s_flag;
}
