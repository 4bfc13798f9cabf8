// By-value struct parameters, as nvcc passes them: `.param .align 8 .b8 axpy_struct_param_0[64]`.
// The launch file lays the struct out field by field (pointers to buffers, scalars, a nested struct,
// an array, a double, a short and a char), and a second struct nests a struct holding a pointer.
// Written for ptxrun.
#include <cstdint>

struct Range {
  int begin, end;
};

struct Axpy {           // offset
  const float* x;       //  0
  float* y;             //  8
  float alpha;          // 16
  int n;                // 20
  Range r;              // 24
  float coef[4];        // 32
  double bias;          // 48
  unsigned short tag;   // 56
  signed char shift;    // 58
};                      // 64 bytes, aligned to 8

struct Counter {
  int* hits;            //  0
  int weight;           //  8
};
struct Tally {
  char name[3];         //  0 (not read)
  Counter c;            //  8
  short bump;           // 24
};                      // 32 bytes

extern "C" __global__ void axpy_struct(Axpy p, Tally t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.n) return;
  float v = fmaf(p.alpha, p.x[i], p.coef[i & 3] * (float)p.bias);
  if (i >= p.r.begin && i < p.r.end) {
    v += (float)p.tag;
    atomicAdd(t.c.hits, t.c.weight << p.shift);
  }
  p.y[i] = v + (float)t.bump;
}
