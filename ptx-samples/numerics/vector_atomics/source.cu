// Vector atomics of sm_90 (PTX ISA 9.0 sections 9.7.13.5 atom, 9.7.13.6 red): each thread applies
// every form once to a 16-byte slot of its own (so the result does not depend on arrival order),
// operands and initial bytes adversarial (gen_inputs.py: NaNs with payloads, infinities, zeros
// of both signs, subnormals, the largest finite values, random bits). mem: the slots after the
// atomics; olds: what atom returned. Form f uses slot mem[f * N + t], operand ops[f * N + t].
// Written for ptxrun.
#include <cstdint>

#define V2(r) "{%" #r "0, %" #r "1}"
__device__ __forceinline__ uint4 ld4(const uint4* p) { return *p; }

extern "C" __global__ void vector_atomics(const uint4* ops, uint4* mem, uint4* olds, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  uint4 o = {0, 0, 0, 0};
  int f = 0;
  auto slot = [&](int form) { return mem + form * n + t; };
  auto op = [&](int form) { return ld4(ops + form * n + t); };
  uint4 b;
  // 0: atom.add.v2.f32
  b = op(f);
  asm volatile("atom.global.add.v2.f32 {%0, %1}, [%2], {%3, %4};" : "=r"(o.x), "=r"(o.y) : "l"(slot(f)), "r"(b.x), "r"(b.y) : "memory");
  olds[f * n + t] = o; ++f;
  // 1: atom.add.v4.f32
  b = op(f);
  asm volatile("atom.global.add.v4.f32 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};" : "=r"(o.x), "=r"(o.y), "=r"(o.z), "=r"(o.w) : "l"(slot(f)), "r"(b.x), "r"(b.y), "r"(b.z), "r"(b.w) : "memory");
  olds[f * n + t] = o; ++f;
  // 2: red.add.v4.f32 (relaxed.gpu)
  b = op(f);
  asm volatile("red.relaxed.gpu.global.add.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(slot(f)), "r"(b.x), "r"(b.y), "r"(b.z), "r"(b.w) : "memory");
  ++f;
  // 3: atom.add.noftz.v2.f16 (2 x 16 bits in b.x)
  b = op(f);
  {
    unsigned short h0 = b.x & 0xffff, h1 = b.x >> 16, r0, r1;
    asm volatile("atom.global.add.noftz.v2.f16 {%0, %1}, [%2], {%3, %4};" : "=h"(r0), "=h"(r1) : "l"(slot(f)), "h"(h0), "h"(h1) : "memory");
    o = make_uint4(r0 | (unsigned)r1 << 16, 0, 0, 0);
  }
  olds[f * n + t] = o; ++f;
  // 4: atom.add.noftz.v8.f16
  b = op(f);
  {
    unsigned short h[8], r[8];
    for (int i = 0; i < 4; ++i) { unsigned w = (&b.x)[i]; h[2 * i] = w & 0xffff; h[2 * i + 1] = w >> 16; }
    asm volatile("atom.global.add.noftz.v8.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8], {%9, %10, %11, %12, %13, %14, %15, %16};"
                 : "=h"(r[0]), "=h"(r[1]), "=h"(r[2]), "=h"(r[3]), "=h"(r[4]), "=h"(r[5]), "=h"(r[6]), "=h"(r[7])
                 : "l"(slot(f)), "h"(h[0]), "h"(h[1]), "h"(h[2]), "h"(h[3]), "h"(h[4]), "h"(h[5]), "h"(h[6]), "h"(h[7]) : "memory");
    for (int i = 0; i < 4; ++i) (&o.x)[i] = r[2 * i] | (unsigned)r[2 * i + 1] << 16;
  }
  olds[f * n + t] = o; ++f;
  // 5: atom.add.noftz.v8.bf16
  b = op(f);
  {
    unsigned short h[8], r[8];
    for (int i = 0; i < 4; ++i) { unsigned w = (&b.x)[i]; h[2 * i] = w & 0xffff; h[2 * i + 1] = w >> 16; }
    asm volatile("atom.global.add.noftz.v8.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8], {%9, %10, %11, %12, %13, %14, %15, %16};"
                 : "=h"(r[0]), "=h"(r[1]), "=h"(r[2]), "=h"(r[3]), "=h"(r[4]), "=h"(r[5]), "=h"(r[6]), "=h"(r[7])
                 : "l"(slot(f)), "h"(h[0]), "h"(h[1]), "h"(h[2]), "h"(h[3]), "h"(h[4]), "h"(h[5]), "h"(h[6]), "h"(h[7]) : "memory");
    for (int i = 0; i < 4; ++i) (&o.x)[i] = r[2 * i] | (unsigned)r[2 * i + 1] << 16;
  }
  olds[f * n + t] = o; ++f;
  // 6: atom.add.noftz.v4.f16x2
  b = op(f);
  asm volatile("atom.global.add.noftz.v4.f16x2 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};" : "=r"(o.x), "=r"(o.y), "=r"(o.z), "=r"(o.w) : "l"(slot(f)), "r"(b.x), "r"(b.y), "r"(b.z), "r"(b.w) : "memory");
  olds[f * n + t] = o; ++f;
  // 7: atom.add.noftz.v2.bf16x2
  b = op(f);
  o = make_uint4(0, 0, 0, 0);
  asm volatile("atom.global.add.noftz.v2.bf16x2 {%0, %1}, [%2], {%3, %4};" : "=r"(o.x), "=r"(o.y) : "l"(slot(f)), "r"(b.x), "r"(b.y) : "memory");
  olds[f * n + t] = o; ++f;
  // 8: atom.max.noftz.v4.f16x2
  b = op(f);
  asm volatile("atom.global.max.noftz.v4.f16x2 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};" : "=r"(o.x), "=r"(o.y), "=r"(o.z), "=r"(o.w) : "l"(slot(f)), "r"(b.x), "r"(b.y), "r"(b.z), "r"(b.w) : "memory");
  olds[f * n + t] = o; ++f;
  // 9: atom.min.noftz.v4.bf16x2
  b = op(f);
  asm volatile("atom.global.min.noftz.v4.bf16x2 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};" : "=r"(o.x), "=r"(o.y), "=r"(o.z), "=r"(o.w) : "l"(slot(f)), "r"(b.x), "r"(b.y), "r"(b.z), "r"(b.w) : "memory");
  olds[f * n + t] = o; ++f;
  // 10: red.add.noftz.v8.bf16
  b = op(f);
  {
    unsigned short h[8];
    for (int i = 0; i < 4; ++i) { unsigned w = (&b.x)[i]; h[2 * i] = w & 0xffff; h[2 * i + 1] = w >> 16; }
    asm volatile("red.global.add.noftz.v8.bf16 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
                 :: "l"(slot(f)), "h"(h[0]), "h"(h[1]), "h"(h[2]), "h"(h[3]), "h"(h[4]), "h"(h[5]), "h"(h[6]), "h"(h[7]) : "memory");
  }
  ++f;
  // 11: red.max.noftz.v2.f16x2, generic address
  b = op(f);
  asm volatile("red.max.noftz.v2.f16x2 [%0], {%1, %2};" :: "l"(slot(f)), "r"(b.x), "r"(b.y) : "memory");
  ++f;
  // 12: atom.add.v4.f32, generic address, acq_rel.gpu
  b = op(f);
  asm volatile("atom.acq_rel.gpu.add.v4.f32 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8};" : "=r"(o.x), "=r"(o.y), "=r"(o.z), "=r"(o.w) : "l"(slot(f)), "r"(b.x), "r"(b.y), "r"(b.z), "r"(b.w) : "memory");
  olds[f * n + t] = o; ++f;
}
