// Device-side cudaMemsetAsync (CUDA dynamic parallelism, CDP2) on the GPU: the bytes fills of 0x5a,
// 0x1234, 0xff and 7 leave, at aligned and odd addresses, and what a child launched after them reads.
//   nvcc -arch=sm_90a -rdc=true scripts/probes/cdp_memset.cu -lcudadevrt -o /tmp/cdp_memset && /tmp/cdp_memset
#include <cstdio>
__global__ void child(const unsigned char* in, unsigned char* out, int n) { for (int i = 0; i < n; i++) out[i] = in[i]; }
extern "C" __global__ void parent(unsigned char* b, unsigned char* seen, int* codes) {
  codes[0] = cudaMemsetAsync(b, 0x5a, 16, 0);
  codes[1] = cudaMemsetAsync(b + 16, 0x1234, 16, 0);
  codes[2] = cudaMemsetAsync(b + 33, 0xff, 10, 0);
  codes[3] = cudaMemsetAsync(b + 48, 7, 1, 0);
  codes[4] = cudaMemsetAsync(b + 64, 0x5a, 64, 0);
  codes[5] = cudaMemsetAsync(b + 129, 0x5a, 3, 0);
  child<<<1, 1>>>(b, seen, 256);
}
int main() {
  unsigned char *b, *seen; int* codes;
  cudaMalloc(&b, 256); cudaMalloc(&seen, 256); cudaMalloc(&codes, 64);
  cudaMemset(b, 0xee, 256); cudaMemset(seen, 0, 256); cudaMemset(codes, 0xff, 64);
  parent<<<1, 1>>>(b, seen, codes);
  cudaError_t e = cudaDeviceSynchronize();
  printf("launch %d\n", (int)e);
  unsigned char hb[256], hs[256]; int hc[16];
  cudaMemcpy(hb, b, 256, cudaMemcpyDeviceToHost); cudaMemcpy(hs, seen, 256, cudaMemcpyDeviceToHost); cudaMemcpy(hc, codes, 64, cudaMemcpyDeviceToHost);
  printf("codes"); for (int i = 0; i < 6; i++) printf(" %d", hc[i]); printf("\nafter");
  for (int i = 0; i < 136; i++) printf("%s%02x", i % 16 ? " " : "\n", hb[i]);
  printf("\nseen by child");
  for (int i = 0; i < 136; i++) printf("%s%02x", i % 16 ? " " : "\n", hs[i]);
  printf("\n");
}
