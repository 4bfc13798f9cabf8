// Data-dependent control flow: Collatz step counts with a cap (break), skipped iterations (continue),
// nested loops that leave the outer loop through a flag, early returns of some threads, a dense switch
// (jump table candidate) and a sparse one, and a do/while whose trip count differs in every lane.
#define NO 8
__device__ __forceinline__ unsigned collatz_steps(unsigned long long x, unsigned cap) {
  unsigned steps = 0;
  while (x != 1ull) {
    if (steps >= cap) break;
    x = (x & 1ull) ? 3ull * x + 1ull : x >> 1;
    ++steps;
  }
  return steps;
}

extern "C" __global__ void divergent_loops(const unsigned* __restrict__ in, int* __restrict__ out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int* o = out + (size_t)tid * NO;
  if (tid >= n) return;
  unsigned v = in[tid];
  if (v == 0u) {                 // early exit for some lanes: slot 0 = -1, the rest of the row stays 0
    o[0] = -1;
    return;
  }
  o[0] = (int)collatz_steps(v, 300u);

  // continue/break in one loop: sum of the odd digits until a 0 digit or 9 digits
  int acc = 0, k = 0;
  for (unsigned x = v; x != 0u; x /= 10u) {
    unsigned dgt = x % 10u;
    ++k;
    if (dgt == 0u) break;
    if ((dgt & 1u) == 0u) continue;
    acc += (int)dgt * k;
  }
  o[1] = acc * 16 + k;

  // nested loops, leaving both through a flag; inner trip count depends on the outer index
  int found = -1;
  for (int i = 0; i < 8 && found < 0; ++i) {
    for (int j = 0; j <= i; ++j) {
      if (((v >> (i + j)) & 7u) == 5u) { found = i * 8 + j; break; }
    }
  }
  o[2] = found;

  // dense switch
  int s;
  switch (v % 11u) {
    case 0: s = 10; break;
    case 1: s = (int)(v >> 3); break;
    case 2: s = -7; break;
    case 3: s = (int)(v * 3u); // fallthrough
    case 4: s = (v % 11u == 3u) ? s + 1 : 44; break;
    case 5: s = __popc(v); break;
    case 6: s = (int)__brev(v); break;
    case 7: s = 777; break;
    case 8: s = (int)(v ^ 0xffu); break;
    case 9: s = -(int)(v & 0xffffu); break;
    default: s = 1000; break;
  }
  o[3] = s;
  // sparse switch
  switch (v & 0xf000u) {
    case 0x1000u: o[4] = 1; break;
    case 0x8000u: o[4] = 8; break;
    case 0xf000u: o[4] = 15; break;
    default: o[4] = -2;
  }

  // do/while with a lane-specific trip count and a nested if/else chain
  unsigned x = v, h = 2166136261u;
  int iter = 0;
  do {
    if (x & 1u) h = (h ^ (x & 0xffu)) * 16777619u;
    else if (x & 2u) h += x;
    else h = (h << 5) | (h >> 27);
    x >>= 2;
    ++iter;
  } while (x != 0u && iter < 13);
  o[5] = (int)h;
  o[6] = iter;

  // a loop whose exit test is in the middle, with a goto-like retry
  int tries = 0;
  unsigned y = v;
  for (;;) {
    y = y * 1103515245u + 12345u;
    ++tries;
    if ((y >> 28) == (v & 15u)) break;
    if (tries == 40) { tries = -tries; break; }
  }
  o[7] = tries;
}
