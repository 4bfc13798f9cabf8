/* Native C version of ptx-samples/bench/sgemm_plain: C = A * B for n = 256, each output element
 * accumulated with fmaf in the kernel's k order (so the bytes equal the GPU's), the inputs made
 * by the launch file's generator (SplitMix64 seeds 11 and 12, uniform in [-1, 1)), one core,
 * gcc -O2. scripts/bench times this whole process and compares argv[1] with the golden output. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void fill(float *a, uint64_t seed) {
  for (int i = 0; i < N * N; ++i) {
    double unit = (double)(splitmix64(&seed) >> 11) * (1.0 / 9007199254740992.0);
    a[i] = (float)(-1.0 + unit * 2.0);
  }
}

int main(int argc, char **argv) {
  float *A = malloc(sizeof(float) * N * N), *B = malloc(sizeof(float) * N * N);
  float *C = calloc(N * N, sizeof(float));
  fill(A, 11);
  fill(B, 12);
  for (int row = 0; row < N; ++row)
    for (int col = 0; col < N; ++col) {
      float acc = 0.f;
      for (int k = 0; k < N; ++k) acc = fmaf(A[row * N + k], B[k * N + col], acc);
      C[row * N + col] = acc;
    }
  if (argc > 1) {
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(C, sizeof(float), N * N, f) != N * N) return 1;
    fclose(f);
  }
  double sum = 0;
  for (int i = 0; i < N * N; ++i) sum += C[i];
  printf("%.6f\n", sum);
  free(A); free(B); free(C);
  return 0;
}
