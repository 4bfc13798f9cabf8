// nvcc 13.0 -arch=sm_90a -rdc=true -ptx. BUG: thread 0 queues a device-side cudaMemcpyAsync of its
// CTA's segment of a, then overwrites the segment's first element. The copy runs at some time
// after it is queued: it may copy either value. Correct twin: launch/cdp_copies.

extern "C" __global__ void root(unsigned* a, unsigned* b) {
  int seg = blockDim.x;
  int k = blockIdx.x;
  int i = k * seg + threadIdx.x;
  a[i] = a[i] * 2654435761u + k;
  __syncthreads();
  if (threadIdx.x != 0) return;
  cudaMemcpyAsync(b + k * seg, a + k * seg, seg * sizeof(unsigned), cudaMemcpyDeviceToDevice, 0);
  a[k * seg] = 0;  // the copy may not have read it yet
}
