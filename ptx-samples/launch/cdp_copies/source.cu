// nvcc 13.0 -arch=sm_90a -rdc=true -ptx: device-side cudaMemcpyAsync and cudaMemsetAsync in each
// of CDP2's streams, ordered with the grids around them as the GPU orders them (measured on an
// H200: docs/launch/cdp-memcpy.md). Per CTA: a copy then a grid that reads what it copied (the
// NULL stream); a fill then a grid that writes half of it (a created stream); a fire-and-forget
// copy no one else touches. CTA 0 also queues, in the tail stream, a copy of what every CTA's
// grids wrote and a grid that reads the copy. Buggy twin: hazards/cdp_copy_source_overwritten.

// out[i] = in[i] * 2 + i over n elements.
extern "C" __global__ void twice(const unsigned* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2 + (unsigned)i;
}

extern "C" __global__ void root(unsigned* a, unsigned* b, unsigned* c, unsigned* d, unsigned* e,
                                unsigned* f, unsigned* g, int n) {
  int seg = blockDim.x;
  int k = blockIdx.x;
  int i = k * seg + threadIdx.x;
  a[i] = a[i] * 2654435761u + k;
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned bytes = seg * sizeof(unsigned);
  cudaMemcpyAsync(b + k * seg, a + k * seg, bytes, cudaMemcpyDeviceToDevice, 0);
  twice<<<1, seg>>>(b + k * seg, c + k * seg, seg);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemsetAsync(d + k * seg, 0, bytes, s);
  twice<<<1, seg / 2, 0, s>>>(a + k * seg, d + k * seg, seg / 2);
  cudaStreamDestroy(s);
  cudaMemcpyAsync(g + k * seg, a + k * seg, bytes, cudaMemcpyDeviceToDevice,
                  cudaStreamFireAndForget);
  if (k == 0) {
    cudaMemcpyAsync(e, c, n * sizeof(unsigned), cudaMemcpyDeviceToDevice, cudaStreamTailLaunch);
    twice<<<gridDim.x, seg, 0, cudaStreamTailLaunch>>>(e, f, n);
  }
}
