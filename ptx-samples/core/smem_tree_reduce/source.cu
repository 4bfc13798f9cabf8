// Shared-memory block reductions with __syncthreads: a tree sum of ints (static shared) and of floats
// (dynamic shared; the tree fixes the order of the fp32 additions, so the result is deterministic),
// a tree max, the last 32 steps with __syncwarp, and a Hillis-Steele inclusive scan in double-buffered
// shared memory.
#define BS 256
extern "C" __global__ void smem_tree_reduce(const int* __restrict__ xi, const float* __restrict__ xf,
                                            int* __restrict__ sum_i, float* __restrict__ sum_f,
                                            int* __restrict__ max_i, int* __restrict__ scan_out) {
  __shared__ int si[BS];
  __shared__ int sm[BS];
  __shared__ int buf[2][BS];
  extern __shared__ float sf[];
  const int t = threadIdx.x;
  const int base = blockIdx.x * BS * 2;
  int a = xi[base + t], b = xi[base + BS + t];
  si[t] = a + b;
  sm[t] = max(a, b);
  sf[t] = xf[base + t] + xf[base + BS + t];
  __syncthreads();
  for (int s = BS / 2; s > 32; s >>= 1) {
    if (t < s) {
      si[t] += si[t + s];
      sm[t] = max(sm[t], sm[t + s]);
      sf[t] += sf[t + s];
    }
    __syncthreads();
  }
  if (t < 32) {
    for (int s = 32; s > 0; s >>= 1) {
      int vi = si[t] + si[t + s];
      int vm = max(sm[t], sm[t + s]);
      float vf = sf[t] + sf[t + s];
      __syncwarp();
      si[t] = vi; sm[t] = vm; sf[t] = vf;
      __syncwarp();
    }
    if (t == 0) {
      sum_i[blockIdx.x] = si[0];
      max_i[blockIdx.x] = sm[0];
      sum_f[blockIdx.x] = sf[0];
    }
  }

  // inclusive scan of a over the block
  int cur = 0;
  buf[0][t] = a;
  __syncthreads();
  for (int off = 1; off < BS; off <<= 1) {
    int v = buf[cur][t];
    if (t >= off) v += buf[cur][t - off];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  scan_out[blockIdx.x * BS + t] = buf[cur][t];
}
