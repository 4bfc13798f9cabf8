// nvcc 13.0 -arch=sm_90a -rdc=true -ptx: a device-side cudaMemcpyAsync, which ptxrun does not run.
extern "C" __global__ void copy(int* dst, const int* src) {
  cudaMemcpyAsync(dst, src, 4 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
}
