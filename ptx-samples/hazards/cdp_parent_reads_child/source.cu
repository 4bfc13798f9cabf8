// nvcc 13.0 -arch=sm_90a -rdc=true -ptx. BUG: the parent reads what its child grid writes right
// after launching it. CUDA 12 removed device-side cudaDeviceSynchronize, and nothing else makes a
// parent wait for its child: the read races with the child's writes (a tail launch would read
// them after the child). Correct twin: launch/cdp_stream_order.

// y[i] = x[i] * k + i over one CTA's segment.
extern "C" __global__ void scale(const unsigned* x, unsigned* y, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * k + (unsigned)i;
}

extern "C" __global__ void root(unsigned* x, unsigned* y, unsigned* out, int n) {
  int seg = blockDim.x;
  int b = blockIdx.x;
  int i = b * seg + threadIdx.x;
  x[i] = x[i] * 2654435761u + b;
  __syncthreads();
  if (threadIdx.x == 0) scale<<<1, seg>>>(x + b * seg, y + b * seg, seg, 3);
  __syncthreads();
  out[i] = y[i] + 1;  // the child may not have run yet
}
