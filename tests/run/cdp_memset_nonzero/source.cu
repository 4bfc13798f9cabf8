// nvcc 13.0 -arch=sm_90a -rdc=true -ptx: a device-side cudaMemsetAsync of a nonzero byte, which an
// H200 with CUDA 13.0's device runtime turns into zeros (measured); ptxrun stops, saying so.
extern "C" __global__ void fill(int* dst) {
  cudaMemsetAsync(dst, 0x5a, 4 * sizeof(int), 0);
}
