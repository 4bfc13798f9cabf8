extern "C" __global__ void carve_dynamic(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ __align__(16) unsigned char smem[];
  float* vals = reinterpret_cast<float*>(smem);                  // blockDim.x floats
  int* counts = reinterpret_cast<int*>(vals + blockDim.x);       // blockDim.x ints
  double* wide = reinterpret_cast<double*>(counts + blockDim.x + (blockDim.x & 1));  // keep 8-byte alignment
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  vals[t] = i < n ? in[i] : 0.0f;
  counts[t] = i < n;
  wide[t] = (double)vals[t] * vals[t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) { vals[t] += vals[t + s]; counts[t] += counts[t + s]; wide[t] += wide[t + s]; }
    __syncthreads();
  }
  if (t == 0) {
    unsigned dyn, total;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
    asm("mov.u32 %0, %%total_smem_size;" : "=r"(total));
    out[4 * blockIdx.x + 0] = vals[0];
    out[4 * blockIdx.x + 1] = (float)counts[0];
    out[4 * blockIdx.x + 2] = (float)wide[0];
    out[4 * blockIdx.x + 3] = (float)(dyn + total);
  }
}

template <typename T>
__global__ void reverse_block(T* data) {
  // one untyped extern symbol shared by all instantiations (the SharedMemory<T> idiom)
  extern __shared__ __align__(16) unsigned char raw_smem[];
  T* buf = reinterpret_cast<T*>(raw_smem);
  int t = threadIdx.x;
  buf[t] = data[blockIdx.x * blockDim.x + t];
  __syncthreads();
  data[blockIdx.x * blockDim.x + t] = buf[blockDim.x - 1 - t];
}
template __global__ void reverse_block<int>(int*);
template __global__ void reverse_block<double2>(double2*);
