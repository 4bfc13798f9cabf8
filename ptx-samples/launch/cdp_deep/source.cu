// nvcc 13.0 -arch=sm_90a -rdc=true -ptx: device-side launches nested 3 deep, a tail launch that
// reads what every descendant wrote, a fire-and-forget launch with mixed parameter types, and
// launches with invalid configurations whose error codes are recorded.
#include <cstdint>

// Each level mixes its segment of x and launches 2 CTAs of half the threads over the segment of
// each of its CTAs, down to depth 3.
extern "C" __global__ void nest(unsigned* x, unsigned* y, int n, int depth) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 2654435761u + depth * 0x9e3779b9u + blockIdx.x;
  __syncthreads();
  if (threadIdx.x == 0 && depth < 3) {
    int seg = blockDim.x;
    nest<<<2, seg / 2>>>(x + blockIdx.x * seg, y + blockIdx.x * seg, seg, depth + 1);
  } else if (depth == 3 && i < n) {
    y[i] = x[i] ^ (depth << 24);
  }
}

// Runs after the launching grid and all its descendants: z[i] from the final x and y.
extern "C" __global__ void tail(const unsigned* x, const unsigned* y, unsigned* z, int n) {
  extern __shared__ unsigned s[];
  int i = threadIdx.x;
  s[i] = x[i] + y[n - 1 - i];
  __syncthreads();
  z[i] = s[i] ^ s[(i + 1) % n];
}

// Parameters of several sizes and alignments, packed at their PTX offsets.
extern "C" __global__ void mixed(unsigned long long* w, char c, double d, short s, float f,
                                 unsigned long long k) {
  int i = threadIdx.x;
  w[i] = k + (unsigned long long)(c * i) + (unsigned long long)(long long)(d * i) +
         (unsigned long long)(s * i) + __float_as_uint(f);
}

extern "C" __global__ void root(unsigned* x, unsigned* y, unsigned* z, unsigned long long* w,
                                int* err, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] ^ 0x5bd1e995u;
  __syncthreads();
  if (threadIdx.x != 0) return;
  int b = blockIdx.x;
  // Depth 1 of the nest over this CTA's segment.
  nest<<<2, blockDim.x / 2>>>(x + b * blockDim.x, y + b * blockDim.x, blockDim.x, 1);
  err[8 * b + 0] = (int)cudaGetLastError();
  if (b == 0) {
    tail<<<1, n, n * sizeof(unsigned), cudaStreamTailLaunch>>>(x, y, z, n);
    err[8 * b + 1] = (int)cudaGetLastError();
  }
  if (b == 1) {
    mixed<<<1, 32, 0, cudaStreamFireAndForget>>>(w, (char)-3, 2.5, (short)-7, 1.25f,
                                                  0x0123456789abcdefull);
    err[8 * b + 1] = (int)cudaGetLastError();
  }
  if (b == 2) {
    // 2048 threads per CTA: an invalid configuration.
    mixed<<<1, 2048>>>(w + 32, 1, 1.0, 1, 1.0f, 1);
    err[8 * b + 1] = (int)cudaPeekAtLastError();
    err[8 * b + 2] = (int)cudaGetLastError();
    err[8 * b + 3] = (int)cudaGetLastError();
  }
  if (b == 3) {
    // More dynamic shared memory than a CTA may have.
    tail<<<1, 32, 1 << 20>>>(x, y, z + n, 32);
    err[8 * b + 1] = (int)cudaGetLastError();
    cudaStream_t s;
    err[8 * b + 2] = (int)cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    mixed<<<1, 32, 0, s>>>(w + 64, 5, -1.5, 3, -2.0f, 42);
    err[8 * b + 3] = (int)cudaGetLastError();
    err[8 * b + 4] = (int)cudaStreamDestroy(s);
  }
}

// Launch configurations at the limits; each launch's error code goes to err (w gets the writes of
// those that run: 32 words each).
extern "C" __global__ void limits(unsigned long long* w, int* err) {
  mixed<<<1, 32, 48 * 1024>>>(w, 1, 1.0, 1, 1.0f, 1);
  err[0] = (int)cudaGetLastError();
  mixed<<<1, 32, 48 * 1024 + 4>>>(w + 32, 2, 1.0, 1, 1.0f, 2);
  err[1] = (int)cudaGetLastError();
  mixed<<<1, 32, 227 * 1024>>>(w + 64, 3, 1.0, 1, 1.0f, 3);
  err[2] = (int)cudaGetLastError();
  mixed<<<1, 32, 227 * 1024 + 4>>>(w + 96, 4, 1.0, 1, 1.0f, 4);
  err[3] = (int)cudaGetLastError();
  mixed<<<0, 32>>>(w + 128, 5, 1.0, 1, 1.0f, 5);
  err[4] = (int)cudaGetLastError();
  mixed<<<dim3(1, 65536), 32>>>(w + 160, 6, 1.0, 1, 1.0f, 6);
  err[5] = (int)cudaGetLastError();
  mixed<<<1, dim3(32, 1, 65)>>>(w + 192, 7, 1.0, 1, 1.0f, 7);
  err[6] = (int)cudaGetLastError();
  mixed<<<1, 1024>>>(w + 256, 8, 1.0, 1, 1.0f, 8);
  err[7] = (int)cudaGetLastError();
  err[8] = (int)cudaGetLastError();
}

// Recursion to depth 30: err[d] is the error of the launch made at depth d.
extern "C" __global__ void deep(int* err, int depth) {
  if (depth < 30) {
    deep<<<1, 1>>>(err, depth + 1);
    err[depth] = (int)cudaGetLastError();
  }
}
