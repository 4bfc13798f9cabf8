// Histogram with privatised shared bins plus a grab-bag of atomic flavours.
__device__ float atomicMaxFloat(float* addr, float val) {
  int* a = reinterpret_cast<int*>(addr);
  int old = *a, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val) break;
    old = atomicCAS(a, assumed, __float_as_int(val));
  } while (assumed != old);
  return __int_as_float(old);
}

struct Stats {
  unsigned long long total_bytes;
  unsigned long long max_key;
  double weighted;
  float max_val;
  unsigned ticket;
  int last_block;
};

extern "C" __global__ void histogram256(const unsigned char* __restrict__ data, size_t n,
                                        unsigned* __restrict__ bins, Stats* stats,
                                        const unsigned long long* keys) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();

  float vmax = 0.0f;
  unsigned long long kmax = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) {
    unsigned char b = data[i];
    atomicAdd(&local[b], 1u);
    vmax = fmaxf(vmax, b * 0.5f);
    kmax = max(kmax, keys[i & 1023]);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i]) atomicAdd(&bins[i], local[i]);

  atomicMaxFloat(&stats->max_val, vmax);
  atomicMax(&stats->max_key, kmax);
  atomicAdd(&stats->total_bytes, (unsigned long long)blockDim.x);
  atomicAdd(&stats->weighted, (double)vmax * 0.25);
  atomicAdd_block(&local[0], 1u);
  atomicOr_system(&bins[255], 0u);

  // 64-bit CAS: keep the smallest even key seen
  unsigned long long* k = &stats->max_key;
  unsigned long long cur = *k;
  while ((cur & 1ull) && atomicCAS(k, cur, cur - 1) != cur) cur = *k;

  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    unsigned t = atomicInc(&stats->ticket, gridDim.x - 1);
    if (t == gridDim.x - 1) atomicExch(&stats->last_block, (int)blockIdx.x);
    atomicSub(&bins[0], 0u);
    atomicAnd(&bins[1], 0xffffffffu);
    atomicXor(&bins[2], 0u);
    atomicMin(&bins[3], 0xffffffffu);
    atomicDec(&bins[4], 0xffffffffu);
  }
}
