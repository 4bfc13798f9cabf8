/* Native C version of ptx-samples/bench/imma_gemm: C = A * B for int8 A, B (n = 384, row-major),
 * int32 results (exact, so the bytes equal the GPU's tensor-core results), the inputs made by the
 * launch file's generator (SplitMix64 seeds 21 and 22, uniform in [-128, 128)), one core, gcc -O2.
 * scripts/bench times this whole process and compares argv[1] with the golden output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 384

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void fill(int8_t *a, uint64_t seed) {
  for (int i = 0; i < N * N; ++i) a[i] = (int8_t)(-128 + (int64_t)(splitmix64(&seed) % 256));
}

int main(int argc, char **argv) {
  int8_t *A = malloc(N * N), *B = malloc(N * N);
  int32_t *C = calloc(N * N, sizeof(int32_t));
  fill(A, 21);
  fill(B, 22);
  for (int row = 0; row < N; ++row)
    for (int k = 0; k < N; ++k) {
      int32_t a = A[row * N + k];
      for (int col = 0; col < N; ++col) C[row * N + col] += a * B[k * N + col];
    }
  if (argc > 1) {
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(C, sizeof(int32_t), N * N, f) != N * N) return 1;
    fclose(f);
  }
  return 0;
}
