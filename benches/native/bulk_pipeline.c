/* Native C version of ptx-samples/bench/bulk_pipeline: a degree-8 polynomial (Horner, fmaf)
 * at each of 1 M floats made by the launch file's generator (SplitMix64 seed 21, uniform in
 * [-2, 2)), one core, gcc -O2. The kernel moves the data through a bulk-copy ring; the
 * arithmetic, and so every output byte, is the same. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int main(int argc, char **argv) {
  static const float c[9] = {0.5f, -1.25f, 0.75f, 2.0f, -0.375f, 1.5f, -0.625f, 0.125f, 1.0f};
  float *in = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
  uint64_t seed = 21;
  for (int i = 0; i < N; ++i) {
    double unit = (double)(splitmix64(&seed) >> 11) * (1.0 / 9007199254740992.0);
    in[i] = (float)(-2.0 + unit * 4.0);
  }
  for (int i = 0; i < N; ++i) {
    float v = c[0];
    for (int k = 1; k < 9; ++k) v = fmaf(v, in[i], c[k]);
    out[i] = v;
  }
  if (argc > 1) {
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(out, sizeof(float), N, f) != N) return 1;
    fclose(f);
  }
  double sum = 0;
  for (int i = 0; i < N; ++i) sum += out[i];
  printf("%.6f\n", sum);
  free(in);
  free(out);
  return 0;
}
