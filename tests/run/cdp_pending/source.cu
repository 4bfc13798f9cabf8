// nvcc 13.0 -arch=sm_90a -rdc=true -ptx: one thread launches 3000 child grids; ptxrun queues
// them all until the parent ends, and stops at its bound on pending launches (2048).
extern "C" __global__ void leaf(int* out, int i) { out[i] = i; }
extern "C" __global__ void fan(int* out, int n) {
  for (int i = 0; i < n; i++) leaf<<<1, 1>>>(out, i);
}
// A parent that writes memory after launching a child that reads it: a race on a GPU.
extern "C" __global__ void reader(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x]; }
extern "C" __global__ void late_writer(int* in, int* out) {
  reader<<<1, 32>>>(in, out);
  in[threadIdx.x] = 7;
}
