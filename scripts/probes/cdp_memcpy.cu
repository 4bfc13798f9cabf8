// Device-side cudaMemcpyAsync, cudaMemsetAsync and cudaGetErrorString (CUDA dynamic parallelism,
// CDP2) on the GPU: the codes each copy kind returns, whether a copy lands before a child grid
// launched after it into the same stream, and the device runtime's error strings (codes 0 to
// 1099 and a few beyond, at most 255 characters each). Build and run on the GPU host:
//   nvcc -arch=sm_90a -rdc=true scripts/probes/cdp_memcpy.cu -lcudadevrt -o /tmp/cdp_memcpy
//   /tmp/cdp_memcpy > docs/launch/cdp-memcpy-h200.txt
#include <cstdio>
#include <cstring>

constexpr int NSTR = 1100;
constexpr int NEXTRA = 4;
__device__ const int extra[NEXTRA] = {10000, 99999, -1, 0x7fffffff};

__global__ void child(int* out, const int* in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i] * 2;
}

extern "C" __global__ void parent(int* a, int* b, int* c, unsigned long long* codes, char* strs) {
  // A copy, then a child that reads what it copied, in the NULL stream.
  codes[0] = cudaMemcpyAsync(b, a, 16 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
  child<<<1, 16>>>(c, b, 16);
  // Every copy kind, and an invalid one; a copy of 0 bytes; an odd size at odd addresses.
  for (int k = 0; k <= 5; k++)
    codes[1 + k] = cudaMemcpyAsync(b + 20 + k, a + k, 4, (cudaMemcpyKind)k, 0);
  codes[7] = cudaMemcpyAsync(b + 30, a, 0, cudaMemcpyDeviceToDevice, 0);
  codes[8] = cudaMemcpyAsync((char*)(b + 32) + 1, (char*)a + 3, 7, cudaMemcpyDeviceToDevice, 0);
  // A created stream: a copy, then a child into it.
  cudaStream_t s;
  codes[9] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  codes[10] = cudaMemcpyAsync(b + 40, a + 8, 8 * sizeof(int), cudaMemcpyDeviceToDevice, s);
  child<<<1, 8, 0, s>>>(c + 16, b + 40, 8);
  codes[11] = cudaStreamDestroy(s);
  codes[12] = cudaGetLastError();
  // A fill of 10 bytes at an odd address.
  codes[13] = cudaMemsetAsync((char*)(b + 52) + 1, 0x5a, 10, 0);
  for (int e = 0; e < NSTR + NEXTRA; e++) {
    const char* str = cudaGetErrorString((cudaError_t)(e < NSTR ? e : extra[e - NSTR]));
    int i = 0;
    for (; i < 255 && str[i]; i++) strs[e * 256 + i] = str[i];
    strs[e * 256 + i] = 0;
  }
}

int main() {
  int *a, *b, *c;
  unsigned long long* codes;
  char* strs;
  cudaMalloc(&a, 64 * 4);
  cudaMalloc(&b, 64 * 4);
  cudaMalloc(&c, 64 * 4);
  cudaMalloc(&codes, 16 * 8);
  cudaMalloc(&strs, (NSTR + NEXTRA) * 256);
  int ha[64];
  for (int i = 0; i < 64; i++) ha[i] = 100 + i;
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemset(b, 0xEE, 64 * 4);
  cudaMemset(c, 0, 64 * 4);
  cudaMemset(codes, 0xFF, 16 * 8);
  parent<<<1, 1>>>(a, b, c, codes, strs);
  cudaError_t e = cudaDeviceSynchronize();
  printf("launch %d %s\n", (int)e, cudaGetErrorString(e));
  unsigned long long hc[16];
  int hb[64], hcc[64];
  static char hs[(NSTR + NEXTRA) * 256];
  cudaMemcpy(hc, codes, sizeof hc, cudaMemcpyDeviceToHost);
  cudaMemcpy(hb, b, sizeof hb, cudaMemcpyDeviceToHost);
  cudaMemcpy(hcc, c, sizeof hcc, cudaMemcpyDeviceToHost);
  cudaMemcpy(hs, strs, sizeof hs, cudaMemcpyDeviceToHost);
  printf("codes");
  for (int i = 0; i < 14; i++) printf(" %lld", (long long)hc[i]);
  printf("\nb");
  for (int i = 0; i < 64; i++) printf(" %08x", hb[i]);
  printf("\nc");
  for (int i = 0; i < 64; i++) printf(" %d", hcc[i]);
  printf("\n");
  const char* last = "";
  for (int i = 0; i < NSTR; i++) {
    const char* s = hs + i * 256;
    if (i == 0 || strcmp(s, last) != 0) printf("str %d %s\n", i, s);
    last = s;
  }
  const int ex[NEXTRA] = {10000, 99999, -1, 0x7fffffff};
  for (int i = 0; i < NEXTRA; i++) printf("extra %d %s\n", ex[i], hs + (NSTR + i) * 256);
  return 0;
}
