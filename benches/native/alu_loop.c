/* Native C version of ptx-samples/bench/alu_loop: the same computation for every thread of the
 * launch (grid 64 x block 256, iters 1000), one thread after another on one core, as gcc -O2
 * compiles it. scripts/bench times this whole process against ptxrun's and checks that the bytes
 * written (argv[1]) equal the GPU's golden output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GRID 64
#define BLOCK 256

static void alu_loop(uint32_t *out, int iters, unsigned bx, unsigned tx) {
  uint32_t x = bx * BLOCK + tx, h = 2166136261u;
  for (int i = 0; i < iters; ++i) {
    h = (h ^ (x + (uint32_t)i)) * 16777619u;
    if (h & 1) h += x << 3; else h ^= h >> 7;
  }
  out[bx * BLOCK + tx] = h;
}

int main(int argc, char **argv) {
  int iters = 1000;
  uint32_t *out = calloc(GRID * BLOCK, sizeof *out);
  for (unsigned b = 0; b < GRID; ++b)
    for (unsigned t = 0; t < BLOCK; ++t) alu_loop(out, iters, b, t);
  if (argc > 1) {
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(out, sizeof *out, GRID * BLOCK, f) != GRID * BLOCK) return 1;
    fclose(f);
  }
  uint32_t sum = 0;
  for (int i = 0; i < GRID * BLOCK; ++i) sum ^= out[i];
  printf("%08x\n", sum);
  free(out);
  return 0;
}
