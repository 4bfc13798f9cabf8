// nvcc 13.0 -arch=sm_90a -rdc=true -ptx. BUG: two grids launched into cudaStreamFireAndForget,
// the second reading what the first writes. Fire-and-forget launches are not ordered with each
// other (each is a stream of its own): mix may run before or beside scale. Correct twin:
// launch/cdp_stream_order (the same two grids in one stream).

extern "C" __global__ void scale(const unsigned* x, unsigned* y, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * k + (unsigned)i;
}

extern "C" __global__ void mix(const unsigned* y, unsigned* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = y[i] ^ (y[(i + 1) % n] >> 3);
}

extern "C" __global__ void root(unsigned* x, unsigned* y, unsigned* z, int n) {
  int seg = blockDim.x;
  int b = blockIdx.x;
  int i = b * seg + threadIdx.x;
  x[i] = x[i] * 2654435761u + b;
  __syncthreads();
  if (threadIdx.x != 0) return;
  scale<<<1, seg, 0, cudaStreamFireAndForget>>>(x + b * seg, y + b * seg, seg, 3);
  mix<<<1, seg, 0, cudaStreamFireAndForget>>>(y + b * seg, z + b * seg, seg);
}
