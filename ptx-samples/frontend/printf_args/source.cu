#include <cstdio>
extern "C" __global__ void print_stuff(const float* v, long long big, double d, const char* tag) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x % 32 == 0) {
    printf("block %d thread %u: v=%f big=%lld d=%.3e\n", blockIdx.x, threadIdx.x, v[i], big, d);
    printf("hex %#x char %c str %s ptr %p size %zu g=%g\n", 0xbeefu + i, 'A' + (i % 26), "const", v + i, sizeof(double) * i, (double)v[i] * d);
  }
  if (i == 0) printf("tag=%s\n", tag);
  if (i == 1) printf("no args\n");
}
