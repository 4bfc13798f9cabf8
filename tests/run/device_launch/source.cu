// nvcc 13.0 -arch=sm_90 -rdc=true -ptx: a kernel that launches a child grid from device code.
extern "C" __global__ void child(float* x, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * s + 1.0f;
}
extern "C" __global__ void parent(float* x, int n) {
  if (threadIdx.x == 0) {
    int chunk = n / gridDim.x;
    child<<<(chunk + 63) / 64, 64>>>(x + blockIdx.x * chunk, chunk, (float)blockIdx.x);
  }
}
