// Benchmark: an integer-ALU-bound loop (FNV-style hash with a data-dependent branch), no memory traffic
// except one store per thread. grid 64, block 256, iters 1000.
extern "C" __global__ void alu_loop(unsigned* out, int iters) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, h = 2166136261u;
  for (int i = 0; i < iters; ++i) { h = (h ^ (x + i)) * 16777619u; if (h & 1) h += x << 3; else h ^= h >> 7; }
  out[blockIdx.x * blockDim.x + threadIdx.x] = h;
}
