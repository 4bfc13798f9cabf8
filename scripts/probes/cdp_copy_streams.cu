// Device-side cudaMemcpyAsync and cudaMemsetAsync into the two special streams of CDP2,
// cudaStreamTailLaunch and cudaStreamFireAndForget: the codes they return, whether the bytes
// are copied or filled by the time the launch ends, and whether a tail-launched child issued
// after a tail-stream copy reads the copied bytes. Build and run on the GPU host:
//   nvcc -arch=sm_90a -rdc=true scripts/probes/cdp_copy_streams.cu -lcudadevrt -o /tmp/cdp_cs
//   /tmp/cdp_cs > docs/launch/cdp-copy-streams-h200.txt
#include <cstdio>

__global__ void child(int* out, const int* in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i] * 2;
}

extern "C" __global__ void parent(int* a, int* b, int* c, unsigned long long* codes) {
  codes[0] = cudaMemcpyAsync(b, a, 16 * sizeof(int), cudaMemcpyDeviceToDevice,
                             cudaStreamTailLaunch);
  codes[1] = cudaGetLastError();
  child<<<1, 16, 0, cudaStreamTailLaunch>>>(c, b, 16);
  codes[2] = cudaGetLastError();
  codes[3] = cudaMemcpyAsync(b + 16, a + 16, 16 * sizeof(int), cudaMemcpyDeviceToDevice,
                             cudaStreamFireAndForget);
  codes[4] = cudaGetLastError();
  codes[5] = cudaMemsetAsync(b + 32, 0, 16 * sizeof(int), cudaStreamTailLaunch);
  codes[6] = cudaGetLastError();
  codes[7] = cudaMemsetAsync(b + 48, 0, 16 * sizeof(int), cudaStreamFireAndForget);
  codes[8] = cudaGetLastError();
  codes[9] = cudaMemcpyAsync(b + 64, a + 64, 16 * sizeof(int), cudaMemcpyHostToDevice,
                             cudaStreamTailLaunch);
  codes[10] = cudaGetLastError();
}

int main() {
  int *a, *b, *c;
  unsigned long long* codes;
  cudaMalloc(&a, 96 * 4);
  cudaMalloc(&b, 96 * 4);
  cudaMalloc(&c, 16 * 4);
  cudaMalloc(&codes, 16 * 8);
  int ha[96];
  for (int i = 0; i < 96; i++) ha[i] = 100 + i;
  cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice);
  cudaMemset(b, 0xEE, 96 * 4);
  cudaMemset(c, 0, 16 * 4);
  cudaMemset(codes, 0xFF, 16 * 8);
  parent<<<1, 1>>>(a, b, c, codes);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  printf("launch %d (%s), sync %d (%s)\n", launch, cudaGetErrorString(launch), sync,
         cudaGetErrorString(sync));
  unsigned long long hc[16];
  int hb[96], hcc[16];
  cudaMemcpy(hc, codes, sizeof hc, cudaMemcpyDeviceToHost);
  cudaMemcpy(hb, b, sizeof hb, cudaMemcpyDeviceToHost);
  cudaMemcpy(hcc, c, sizeof hcc, cudaMemcpyDeviceToHost);
  const char* what[11] = {"memcpy tail",
                          "  last error",
                          "  last error after a tail launch",
                          "memcpy fire-and-forget",
                          "  last error",
                          "memset 0 tail",
                          "  last error",
                          "memset 0 fire-and-forget",
                          "  last error",
                          "memcpy host-to-device tail",
                          "  last error"};
  for (int i = 0; i < 11; i++) printf("code %2d %-32s %lld\n", i, what[i], (long long)hc[i]);
  for (int r = 0; r < 6; r++) {
    printf("b[%2d..%2d):", r * 16, r * 16 + 16);
    for (int i = 0; i < 16; i++) printf(" %d", hb[r * 16 + i]);
    printf("\n");
  }
  printf("c (tail child, 2 * b[0..16)):");
  for (int i = 0; i < 16; i++) printf(" %d", hcc[i]);
  printf("\n");
  return 0;
}
