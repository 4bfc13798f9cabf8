// Dynamic shared memory seen through several extern __shared__ arrays of different types (they all start at
// the same address: the beginning of the dynamic area, after the static __shared__ variables), plus a
// byte-offset carve-up of one of them. Values written through one view are read back through another
// (type punning of the same bytes), a block-wide inclusive scan runs in the f32 view, a double reduction
// in a region carved at a run-time offset, and int4 vector stores/loads cover the 16-byte alignment.
// Launched with 8192 bytes of dynamic shared memory, block 128.
extern __shared__ __align__(16) float dyn_f[];
extern __shared__ __align__(16) int dyn_i[];
extern __shared__ __align__(16) double dyn_d[];
extern __shared__ __align__(16) int4 dyn_i4[];
extern __shared__ __align__(16) unsigned char dyn_b[];
extern __shared__ __align__(16) unsigned short dyn_h[];

extern "C" __global__ void dyn_smem(const float* __restrict__ in, const int* __restrict__ cfg,
                                    float* __restrict__ of, int* __restrict__ oi, double* __restrict__ od) {
  __shared__ int s_static[64];                       // static area: the dynamic one starts after it
  const int t = threadIdx.x, nt = blockDim.x;        // nt = 128
  const int g = blockIdx.x * nt + t;
  const float x = in[g];
  if (t < 64) s_static[t] = t * 3 + blockIdx.x;

  // 1. floats in, ints (bit patterns) out through a different view
  dyn_f[t] = x;
  __syncthreads();
  oi[g * 8 + 0] = dyn_i[nt - 1 - t];                 // float bits of a mirrored element
  // 2. inclusive scan (Hillis-Steele, double-buffered in the f32 view: [0, nt) and [nt, 2nt))
  int src = 0;
  for (int off = 1; off < nt; off <<= 1) {
    float v = dyn_f[src * nt + t];
    if (t >= off) v += dyn_f[src * nt + t - off];
    dyn_f[(1 - src) * nt + t] = v;
    __syncthreads();
    src = 1 - src;
  }
  of[g * 4 + 0] = dyn_f[src * nt + t];
  __syncthreads();
  // 3. bytes and halfwords of the same area: write bytes, read halfwords and ints
  dyn_b[4 * t + 0] = (unsigned char)(g * 7);
  dyn_b[4 * t + 1] = (unsigned char)(t ^ 0xa5);
  dyn_h[2 * t + 1] = (unsigned short)(x * 100.0f);
  __syncthreads();
  oi[g * 8 + 1] = dyn_i[(t + 1) % nt];
  oi[g * 8 + 2] = dyn_h[(2 * t + 2) % (2 * nt)] | (dyn_b[(4 * t + 9) % (4 * nt)] << 16);
  __syncthreads();
  // 4. doubles in a region at a run-time byte offset (cfg[0], a multiple of 8), reduction tree
  double* dd = (double*)(dyn_b + cfg[0]);
  dd[t] = (double)x * (double)(t + 1);
  __syncthreads();
  for (int s = nt / 2; s > 0; s >>= 1) {
    if (t < s) dd[t] += dd[t + s];
    __syncthreads();
  }
  od[g * 2 + 0] = dd[0];
  // the same bytes through the float view: low and high halves of a double
  oi[g * 8 + 3] = dyn_i[cfg[0] / 4 + 2 * (t % 8) + 1];
  __syncthreads();
  // 5. int4 vector stores and loads at the start of the area, read back through the double view
  dyn_i4[t] = make_int4(g, -g, t * t, __float_as_int(x));
  __syncthreads();
  int4 q = dyn_i4[(t + 37) % nt];
  oi[g * 8 + 4] = q.x + q.y * 3 + q.z - q.w;
  od[g * 2 + 1] = dyn_d[2 * ((t + 5) % nt) + 1];       // (t*t, float bits) as a double
  // 6. the end of the dynamic area (8192 bytes) and the static array
  __syncthreads();
  dyn_i[2048 - 1 - t] = t * 1000 + s_static[t % 64];
  __syncthreads();
  oi[g * 8 + 5] = dyn_i[2048 - nt + ((t * 5) % nt)];
  oi[g * 8 + 6] = s_static[(t * 7) % 64];
  of[g * 4 + 1] = dyn_f[(2048 - 1 - t)] + 0.5f;       // int bits viewed as float
  oi[g * 8 + 7] = cfg[1];
  of[g * 4 + 2] = x;
  of[g * 4 + 3] = __int_as_float(dyn_i[2048 - 1 - ((t + 1) % nt)]) * 2.0f;
}
