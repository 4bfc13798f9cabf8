extern "C" __global__ void __launch_bounds__(1024) lb_max_only(float* x) { x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f; }

extern "C" __global__ void __launch_bounds__(256, 2) lb_min_blocks(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = sqrtf(x[i]);
}

extern "C" __global__ void __launch_bounds__(128, 4, 2) lb_cluster_cap(float* x) {
  x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
}

extern "C" __global__ void __maxnreg__(64) maxnreg_kernel(const float4* in, float4* out) {
  float4 v = in[threadIdx.x];
  out[threadIdx.x] = make_float4(v.w, v.z, v.y, v.x);
}

extern "C" __global__ void __cluster_dims__(2, 2, 1) __launch_bounds__(64) clustered(int* out) {
  out[blockIdx.y * gridDim.x + blockIdx.x] = threadIdx.x;
}

extern "C" __global__ void no_attributes(int* out) { out[threadIdx.x] = 0; }

// __block_size__ fixes the block shape at compile time -> .reqntid
extern "C" __global__ void __block_size__((32, 4, 1)) fixed_block(int* out) {
  out[(blockIdx.x * 4 + threadIdx.y) * 32 + threadIdx.x] = threadIdx.x + threadIdx.y;
}
