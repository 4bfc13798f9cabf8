// Warp collectives with full, partial and data-dependent masks: shfl (idx/up/down/bfly, widths 4..32,
// out-of-segment lanes, 64-bit and float payloads), vote (ballot/any/all/uni), match.any/all, redux.sync
// (add/min/max signed and unsigned, and/or/xor) and __activemask in divergent branches.
// Every collective is executed by exactly the lanes its mask names, so all results are defined.
#define NO 40
extern "C" __global__ void warp_collectives(const int* __restrict__ in, const long long* __restrict__ in64,
                                            int* __restrict__ out) {
  const unsigned FULL = 0xffffffffu;
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[tid];
  long long w = in64[tid];
  int* o = out + (size_t)tid * NO;
  for (int k = 0; k < NO; ++k) o[k] = 0x7eadbeef;   // every slot written once, even on paths that skip it

  o[0] = __shfl_sync(FULL, v, (lane * 7 + 3) & 31);
  o[1] = __shfl_sync(FULL, v, lane + 5, 8);            // source lane taken modulo the width
  o[2] = __shfl_up_sync(FULL, v, 3, 16);               // lanes 0..2 of each half keep their own value
  o[3] = __shfl_down_sync(FULL, v, 5, 8);
  o[4] = __shfl_xor_sync(FULL, v, 9, 16);
  o[5] = __shfl_xor_sync(FULL, v, 20, 16);             // target outside the segment: own value
  o[6] = __shfl_down_sync(FULL, v, 33);                // delta beyond the warp
  o[7] = __float_as_int(__shfl_xor_sync(FULL, (float)v * 0.25f, 1, 4));
  long long ws = __shfl_sync(FULL, w, 31 - lane);     // 64-bit payload: two shfl.sync
  o[8] = (int)ws; o[9] = (int)(ws >> 32);
  o[10] = __shfl_sync(FULL, v, v & 31);                // data-dependent source lane

  o[11] = (int)__ballot_sync(FULL, v > 0);
  o[12] = __any_sync(FULL, v == 1234567) + 2 * __all_sync(FULL, v != 0) + 4 * __uni_sync(FULL, v >> 30);
  o[13] = (int)__match_any_sync(FULL, v & 3);
  int pred = -1;
  o[14] = (int)__match_all_sync(FULL, v >> 12, &pred);
  o[15] = pred;
  o[16] = (int)__match_any_sync(FULL, w & 0x300000000ll);   // 64-bit match

  o[17] = (int)__reduce_add_sync(FULL, (unsigned)v);
  o[18] = __reduce_min_sync(FULL, v);
  o[19] = __reduce_max_sync(FULL, v);
  o[20] = (int)__reduce_min_sync(FULL, (unsigned)v);
  o[21] = (int)__reduce_max_sync(FULL, (unsigned)v);
  o[22] = (int)__reduce_and_sync(FULL, (unsigned)v | 0x10000000u);
  o[23] = (int)__reduce_or_sync(FULL, (unsigned)v & 0x0f0f0f0fu);
  o[24] = (int)__reduce_xor_sync(FULL, (unsigned)v);

  // Lane-based divergence: two groups, each runs collectives over its own mask.
  if (lane < 20) {
    const unsigned m = 0x000fffffu;
    o[25] = (int)__activemask();
    o[26] = __shfl_sync(m, v, lane ^ 1);
    o[27] = (int)__ballot_sync(m, v & 4);
    o[28] = (int)__reduce_add_sync(m, (unsigned)lane);
    o[29] = (int)__match_any_sync(m, v & 1);
    __syncwarp(m);
  } else {
    const unsigned m = 0xfff00000u;
    o[25] = (int)__activemask();
    o[26] = __shfl_sync(m, v, 31 - (lane - 20));      // stays within lanes 20..31
    o[27] = __reduce_max_sync(m, v);
    int p2 = -1;
    o[28] = (int)__match_all_sync(m, lane >= 20, &p2) + p2;
    o[29] = __all_sync(m, v < 0) + 2 * __any_sync(m, v < 0);
    __syncwarp(m);
  }

  // Data-dependent divergence: the mask of the odd values is computed first, then used inside the branch.
  unsigned odd = __ballot_sync(FULL, v & 1);
  if (v & 1) {
    o[30] = (int)__reduce_add_sync(odd, (unsigned)v);
    o[31] = (int)__activemask();
    int first = __ffs(odd) - 1;
    o[32] = __shfl_sync(odd, v, first);
    // nested: among the odd lanes, those with bit 1 set
    unsigned sub = __ballot_sync(odd, v & 2);
    if (v & 2) {
      o[33] = (int)__reduce_or_sync(sub, (unsigned)lane << 8) ^ __popc(sub);
    }
  } else {
    int r = -v;
    int steps = 0;
    while (r < 1000 && steps < 12) { r = r * 3 + lane; ++steps; }   // data-dependent trip count
    o[30] = r; o[31] = steps;
  }
  __syncwarp();

  // Tree reduction on the low half-warp only, with its own mask, then a width-4 inclusive scan.
  if (lane < 16) {
    int s = v;
    for (int d = 8; d > 0; d >>= 1) s += __shfl_down_sync(0x0000ffffu, s, d, 16);
    o[34] = __shfl_sync(0x0000ffffu, s, 0, 16);
  }
  int scan = v;
  for (int d = 1; d < 4; d <<= 1) {
    int t = __shfl_up_sync(FULL, scan, d, 4);
    if ((lane & 3) >= d) scan += t;
  }
  o[35] = scan;
  // Lanes leave one by one: each loop trip has a different active set, __activemask records it.
  unsigned seen = 0;
  for (int k = 0; k < 32; ++k) {
    if (k > lane) break;
    seen ^= __activemask() * (unsigned)(k + 1);
  }
  o[36] = (int)seen;
  __syncwarp();
  o[37] = (int)__ballot_sync(FULL, (unsigned)v > (unsigned)__shfl_xor_sync(FULL, v, 2));
  unsigned lanemask_lt;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lanemask_lt));
  o[38] = __popc(__ballot_sync(FULL, v & 8) & lanemask_lt);   // stream-compaction index
  o[39] = __reduce_add_sync(FULL, 1u) == 32u ? lane : -1;
}
