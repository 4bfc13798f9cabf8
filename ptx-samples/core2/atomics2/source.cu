// Atomics whose final state does not depend on the order they land in:
//  - a 64-bin histogram: atomicAdd on shared bins, then one atomicAdd per bin into global
//  - float max/min through atomicCAS loops on the bit pattern, compared as floats (negative values too),
//    per block in shared memory and across the grid in global memory
//  - a lock-free linked list pushed with atomicExch (next[i] = exch(&head, i)); each block sorts its own list
//    by rank (set, not order, is checked); the last block to finish (atomicInc ticket after __threadfence)
//    walks the grid-wide list and writes the membership bitmap and the sorted set
//  - atomicInc/atomicDec with wrap on shared and global counters, with a histogram of the returned values
//  - atomicSub, 64-bit atomicAdd/atomicAnd/atomicOr of per-thread values
#define NB 64
extern "C" __global__ void atomics2(const unsigned* __restrict__ key, const float* __restrict__ val,
                                    unsigned* __restrict__ hist, float* __restrict__ fmx,
                                    int* __restrict__ gnext, int* __restrict__ ghead, unsigned* __restrict__ ctr,
                                    int* __restrict__ sorted, unsigned* __restrict__ inc_hist,
                                    unsigned long long* __restrict__ g64) {
  __shared__ unsigned sh_hist[NB];
  __shared__ unsigned sh_max, sh_min, sh_inc, sh_dec;
  __shared__ int s_head;
  __shared__ int s_next[256];
  __shared__ int s_list[256];
  __shared__ int s_len;
  __shared__ unsigned s_inc_hist[16];
  __shared__ bool s_last;
  const int t = threadIdx.x, nt = blockDim.x;
  const int g = blockIdx.x * nt + t;
  const int total = gridDim.x * nt;
  for (int i = t; i < NB; i += nt) sh_hist[i] = 0;
  if (t < 16) s_inc_hist[t] = 0;
  if (t == 0) {
    sh_max = __float_as_uint(-INFINITY); sh_min = __float_as_uint(INFINITY);
    sh_inc = 0; sh_dec = 0; s_head = -1; s_len = 0;
  }
  __syncthreads();

  const unsigned k = key[g];
  const float f = val[g];

  // histogram
  atomicAdd(&sh_hist[k % NB], 1u);
  atomicAdd(&sh_hist[(k >> 8) % NB], (k >> 16) & 7u);

  // float max/min via CAS, compared as floats
  {
    unsigned old = *(volatile unsigned*)&sh_max;   // volatile: no plain read racing the atomics
    while (f > __uint_as_float(old)) {
      unsigned prev = atomicCAS(&sh_max, old, __float_as_uint(f));
      if (prev == old) break;
      old = prev;
    }
    old = *(volatile unsigned*)&sh_min;
    while (f < __uint_as_float(old)) {
      unsigned prev = atomicCAS(&sh_min, old, __float_as_uint(f));
      if (prev == old) break;
      old = prev;
    }
    unsigned* gm = (unsigned*)fmx;
    old = *(volatile unsigned*)gm;
    while (f > __uint_as_float(old)) {
      unsigned prev = atomicCAS(gm, old, __float_as_uint(f));
      if (prev == old) break;
      old = prev;
    }
  }

  // linked lists: a subset of threads pushes itself, per block (shared) and grid-wide (global)
  if (k & 1u) {
    s_next[t] = atomicExch(&s_head, t);
  }
  if ((k & 6u) != 0u) {
    gnext[g] = atomicExch(ghead, g);
  }

  // wrapping counters; the returned values form a fixed multiset
  unsigned r1 = atomicInc(&sh_inc, 11u);          // 0..11
  unsigned r2 = atomicDec(&sh_dec, 13u);          // 0, 13, 12, ..., wraps
  atomicAdd(&s_inc_hist[r1 & 15u], 1u);
  atomicAdd(&inc_hist[16 + (r2 & 15u)], 1u);
  unsigned r3 = atomicInc(&ctr[1], 99u);          // global, wraps at 100
  atomicAdd(&inc_hist[32 + (r3 % 32u)], 1u);
  atomicSub(&ctr[2], k & 0xffu);
  atomicAdd(&g64[0], (unsigned long long)k * k);
  atomicAnd(&g64[1], ~(1ull << (k & 63)));
  atomicOr(&g64[2], 1ull << ((k >> 6) & 63));
  atomicAdd(&g64[3], (unsigned long long)(long long)(int)k);   // sign-extended

  __syncthreads();
  // block-local: sort the shared list's members (rank = number of smaller members)
  if (t == 0) {
    int len = 0;
    for (int i = s_head; i >= 0; i = s_next[i]) s_list[len++] = i;
    s_len = len;
  }
  __syncthreads();
  if (t < s_len) {
    int me = s_list[t], rank = 0;
    for (int j = 0; j < s_len; ++j) rank += s_list[j] < me;
    sorted[blockIdx.x * nt + rank] = me + 1000 * blockIdx.x;
  }
  for (int i = t; i < NB; i += nt) atomicAdd(&hist[i], sh_hist[i]);
  if (t < 16) atomicAdd(&inc_hist[t], s_inc_hist[t]);
  if (t == 0) {
    unsigned* gm = (unsigned*)fmx;
    atomicMax(&ctr[4], (unsigned)s_len);
    atomicAdd(&ctr[5], sh_inc + 100u * sh_dec);
    fmx[2 + 2 * blockIdx.x] = __uint_as_float(sh_max);
    fmx[3 + 2 * blockIdx.x] = __uint_as_float(sh_min);
    // global min over the block minima
    unsigned old = *(volatile unsigned*)(gm + 1);
    float bmin = __uint_as_float(sh_min);
    while (bmin < __uint_as_float(old)) {
      unsigned prev = atomicCAS(gm + 1, old, sh_min);
      if (prev == old) break;
      old = prev;
    }
  }

  // last block: walk the grid-wide list
  __threadfence();
  __syncthreads();
  if (t == 0) {
    unsigned ticket = atomicInc(&ctr[0], gridDim.x - 1u);   // wraps back to 0 after the last block
    s_last = ticket == gridDim.x - 1u;
  }
  __syncthreads();
  if (s_last) {
    __threadfence();
    if (t == 0) {
      int len = 0;
      for (int i = *(volatile int*)ghead; i >= 0; i = ((volatile int*)gnext)[i]) {
        sorted[total + i] = 1;                    // membership bitmap
        ++len;
      }
      ctr[3] = len;
    }
    __syncthreads();
    // compact the bitmap into the sorted set
    if (t == 0) {
      int pos = 0;
      for (int i = 0; i < total; ++i)
        if (sorted[total + i]) sorted[2 * total + pos++] = i;
    }
  }
}
