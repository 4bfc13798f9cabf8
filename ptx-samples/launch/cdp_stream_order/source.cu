// nvcc 13.0 -arch=sm_90a -rdc=true -ptx: child grids ordered only as CUDA dynamic parallelism
// orders them. Each CTA's threads write their part of x and meet at __syncthreads before thread 0
// launches, so the children see all of x (the launch orders what the launching thread knew). Two
// grids in the CTA's NULL stream run in order (mix reads what scale wrote), and two in a stream
// the CTA created; the tail launch reads everything after the whole launch tree. Buggy twins:
// hazards/cdp_parent_reads_child, hazards/cdp_launch_without_sync, hazards/cdp_fire_and_forget.

// y[i] = x[i] * k + i over one CTA's segment.
extern "C" __global__ void scale(const unsigned* x, unsigned* y, int n, unsigned k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * k + (unsigned)i;
}

// z[i] from y[i] and its neighbour: needs all of y written first.
extern "C" __global__ void mix(const unsigned* y, unsigned* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = y[i] ^ (y[(i + 1) % n] >> 3);
}

// After the whole launch tree: out[i] from every buffer.
extern "C" __global__ void finish(const unsigned* x, const unsigned* y, const unsigned* z,
                                  const unsigned* v, const unsigned* w, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + 3 * y[i] + 5 * z[i] + 7 * v[i] + 11 * w[i];
}

extern "C" __global__ void root(unsigned* x, unsigned* y, unsigned* z, unsigned* v, unsigned* w,
                                unsigned* out, int n) {
  int seg = blockDim.x;
  int b = blockIdx.x;
  int i = b * seg + threadIdx.x;
  x[i] = x[i] * 2654435761u + b;
  __syncthreads();
  if (threadIdx.x != 0) return;
  // The NULL stream of this CTA: mix starts after scale has finished.
  scale<<<2, seg / 2>>>(x + b * seg, y + b * seg, seg, 3);
  mix<<<2, seg / 2>>>(y + b * seg, z + b * seg, seg);
  // A stream this CTA created: the same order.
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  scale<<<1, seg, 0, s>>>(x + b * seg, v + b * seg, seg, 5);
  mix<<<1, seg, 0, s>>>(v + b * seg, w + b * seg, seg);
  cudaStreamDestroy(s);
  if (b == 0) finish<<<gridDim.x, seg, 0, cudaStreamTailLaunch>>>(x, y, z, v, w, out, n);
}
