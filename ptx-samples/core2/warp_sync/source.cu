// Warp-synchronous code after divergence: butterfly (__shfl_xor_sync) reductions over partial masks
// (even/odd lanes, lane halves, a data-dependent group whose xor partners stay inside the group),
// __ballot_sync inside loops whose trip count differs per lane (the mask shrinks as lanes leave),
// __syncwarp(mask) ordering shared-memory exchanges inside a warp, in full and in divergent branches.
// Every slot of out is written exactly once, and every collective names exactly the lanes that run it.
#define NO 16
__device__ __forceinline__ unsigned lanemask_lt() { unsigned r; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); return r; }
extern "C" __global__ void warp_sync(const int* __restrict__ in, const unsigned* __restrict__ trip,
                                     int* __restrict__ out) {
  const unsigned FULL = 0xffffffffu;
  __shared__ int buf[128];
  __shared__ int buf2[128];
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  const int g = blockIdx.x * blockDim.x + t;
  int* o = out + (size_t)g * NO;
  int v = in[g];
  unsigned tr = trip[g] % 23u;                           // 0..22 iterations

  // 1. even/odd split: xor partners with even offsets stay within the parity class
  if (lane & 1) {
    int s = v;
    for (int k = 2; k < 32; k <<= 1) s += __shfl_xor_sync(0xaaaaaaaau, s, k);
    o[0] = s;
  } else {
    int s = v;
    for (int k = 2; k < 32; k <<= 1) s = max(s, __shfl_xor_sync(0x55555555u, s, k));
    o[0] = s;
  }
  // 2. lower half of the warp, only when the warp's data say so (whole-half decision)
  if (lane < 16) {
    unsigned long long p = (unsigned long long)(unsigned)v * 0x9E3779B1u;
    for (int k = 1; k < 16; k <<= 1) p ^= __shfl_xor_sync(0x0000ffffu, p, k) << (k & 7);
    o[1] = (int)(p ^ (p >> 32));
  } else if (lane >= 24) {
    float f = (float)(v & 1023) * 0.5f;
    for (int k = 1; k < 8; k <<= 1) f += __shfl_xor_sync(0xff000000u, f, k);   // partners 24..31
    o[1] = __float_as_int(f);
  } else {
    o[1] = __shfl_xor_sync(0x00ff0000u, v, 4) - v;      // lanes 16..23 (xor 4 stays in 16..23)
  }
  // 3. data-dependent group: the warp votes a 4-lane-aligned subset; xor with 1 and 2 stays in a quad
  unsigned q = __ballot_sync(FULL, (v & 3) != 0);
  unsigned quadmask = 0;
  for (int i = 0; i < 8; ++i) if (((q >> (4 * i)) & 0xfu) == 0xfu) quadmask |= 0xfu << (4 * i);
  if ((quadmask >> lane) & 1u) {
    int s = v;
    s += __shfl_xor_sync(quadmask, s, 1);
    s ^= __shfl_xor_sync(quadmask, s, 2);
    o[2] = s;
  } else {
    o[2] = -1 - (int)quadmask;
  }
  // 4. ballot in a loop with per-lane trip counts
  unsigned active = __ballot_sync(FULL, tr > 0u);
  unsigned acc = 0, cnt = 0;
  for (unsigned i = 0; i < tr; ++i) {
    unsigned b = __ballot_sync(active, ((v >> (i & 31)) & 1) != 0);
    acc = acc * 33u + b + __popc(active) * 7u;
    cnt += __popc(b & lanemask_lt());
    active = __ballot_sync(active, i + 1u < tr);
  }
  o[3] = (int)acc;
  o[4] = (int)cnt;
  o[5] = (int)active;                                     // the lanes that outlasted this one
  // 5. a loop with a shuffle whose mask comes from __activemask-free bookkeeping (the ballot of stayers)
  int red = v;
  unsigned m = __ballot_sync(FULL, tr >= 4u);
  if (tr >= 4u) {
    for (unsigned k = 0; k < 5; ++k) {
      int src = __shfl_sync(m, red, (lane + 1 + (int)k) & 31);   // only reads from lanes in m are defined
      unsigned srclane = (lane + 1 + k) & 31;
      red += ((m >> srclane) & 1u) ? (src >> 3) : 0;
    }
  }
  o[6] = red;
  // 6. __syncwarp-ordered shared memory exchange, whole warp
  buf[t] = v;
  __syncwarp();
  int r1 = buf[(w << 5) | ((lane + 5) & 31)];
  __syncwarp();
  buf[t] = r1 * 3 + lane;
  __syncwarp();
  o[7] = buf[(w << 5) | (lane ^ 17)];
  // 7. __syncwarp with a partial mask inside a divergent branch: each half exchanges among itself
  if (lane < 16) {
    buf2[t] = v ^ 0x5a5a;
    __syncwarp(0x0000ffffu);
    int r = buf2[(w << 5) | ((lane + 3) & 15)];
    __syncwarp(0x0000ffffu);
    buf2[t] = r + 1;
    __syncwarp(0x0000ffffu);
    o[8] = buf2[(w << 5) | (15 - lane)];
  } else {
    buf2[t] = v + lane;
    __syncwarp(0xffff0000u);
    o[8] = buf2[(w << 5) | (16 + ((lane * 7) & 15))] - 1;
  }
  // 8. reduction tree with shfl_down after a warp-uniform early skip of odd warps' upper halves
  int s8 = v & 0xffff;
  unsigned m8 = (w & 1) ? 0x0000ffffu : FULL;
  if ((m8 >> lane) & 1u) {
    int width = (w & 1) ? 16 : 32;
    for (int k = width / 2; k > 0; k >>= 1) s8 += __shfl_down_sync(m8, s8, k, width);
    o[9] = __shfl_sync(m8, s8, 0, width);
  } else {
    o[9] = 7;
  }
  // 9. nested divergence: inner ballots use the mask of the lanes on each side
  unsigned outer = __ballot_sync(FULL, v > 0);
  if (v > 0) {
    unsigned inner = __ballot_sync(outer, (v & 4) != 0);
    o[10] = (int)inner;
    o[11] = __shfl_xor_sync(outer, (int)inner ^ v, 0);   // xor 0: own value, trivially inside the mask
  } else {
    unsigned inner = __ballot_sync(~outer, (v & 8) != 0);
    o[10] = (int)~inner;
    o[11] = __any_sync(~outer, v < -1000000) + 2 * __all_sync(~outer, v <= 0);
  }
  // 10. all lanes again: warp sum by xor butterfly of everything computed above
  int tot = o[0] ^ o[1] ^ o[2] ^ o[3] ^ o[4] ^ o[6] ^ o[7] ^ o[8] ^ o[9] ^ o[10] ^ o[11];
  for (int k = 16; k > 0; k >>= 1) tot += __shfl_xor_sync(FULL, tot, k);
  o[12] = tot;
  o[13] = (int)__ballot_sync(FULL, tot & 1);
  o[14] = (int)tr;
  o[15] = __reduce_add_sync(FULL, (int)tr) + 1000 * __reduce_max_sync(FULL, tr);
}
