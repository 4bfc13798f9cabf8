// nvcc 13.0 -arch=sm_90a -rdc=true -ptx: a device-side cudaDeviceGetAttribute, which ptxrun does not answer.
extern "C" __global__ void attr(int* out) {
  cudaDeviceGetAttribute(out, cudaDevAttrMaxThreadsPerBlock, 0);
}
