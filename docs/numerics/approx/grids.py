#!/usr/bin/env python3
"""Measures the H100 tables of ex2 (the 2^-23 grid of [0, 1), positive and negative) and more base grids of
lg2, tanh, sin and cos (run on a machine with CuPy and nvcc; writes OUTDIR/NAME.npz as tables.py does, and the
SASS of the division and half-precision forms).

  grids.py OUTDIR
"""
import os, sys, subprocess
import cupy as cp, numpy as np
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
K = r'''
extern "C" __global__ void grid_fixed(unsigned* out, int neg, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float x = (float)i * 1.1920928955078125e-07f; if (neg) x = -x;   // i * 2^-23, exact
  float r; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); out[i] = __float_as_uint(r); }
extern "C" __global__ void bin(unsigned* out, unsigned first, unsigned n, int op) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  unsigned x = first + i, r;
  if (op == 0) asm("lg2.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(x));
  else if (op == 1) asm("tanh.approx.f32 %0, %1;" : "=r"(r) : "r"(x));
  else if (op == 2) asm("sin.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(x));
  else asm("cos.approx.ftz.f32 %0, %1;" : "=r"(r) : "r"(x));
  out[i] = r; }
extern "C" __global__ void misc(const float* a, const float* b, float* o, const unsigned short* h, unsigned short* ho) {
  unsigned i = threadIdx.x; float r;
  asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(a[i]), "f"(b[i])); o[0*32+i] = r;
  asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a[i]), "f"(b[i])); o[1*32+i] = r;
  asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a[i]), "f"(b[i])); o[2*32+i] = r;
  asm("div.full.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a[i]), "f"(b[i])); o[3*32+i] = r;
  unsigned short s;
  asm("ex2.approx.f16 %0, %1;" : "=h"(s) : "h"(h[i])); ho[0*32+i] = s;
  asm("ex2.approx.ftz.bf16 %0, %1;" : "=h"(s) : "h"(h[i])); ho[1*32+i] = s;
  asm("tanh.approx.f16 %0, %1;" : "=h"(s) : "h"(h[i])); ho[2*32+i] = s;
  asm("tanh.approx.bf16 %0, %1;" : "=h"(s) : "h"(h[i])); ho[3*32+i] = s;
  unsigned u;
  asm("ex2.approx.f16x2 %0, %1;" : "=r"(u) : "r"((unsigned)h[i] * 65537u)); o[4*32+i] = __uint_as_float(u);
  asm("tanh.approx.f16x2 %0, %1;" : "=r"(u) : "r"((unsigned)h[i] * 65537u)); o[5*32+i] = __uint_as_float(u);
}
'''
open('/tmp/k2.cu', 'w').write(K)
subprocess.run(['nvcc', '-arch=sm_90', '-cubin', '-O3', '/tmp/k2.cu', '-o', '/tmp/k2.cubin'], check=True)
open(os.path.join(out, 'k2.sass'), 'w').write(subprocess.run(['cuobjdump', '-sass', '/tmp/k2.cubin'], capture_output=True, text=True).stdout)
mod = cp.RawModule(path='/tmp/k2.cubin')
def save(name, v):
    v = v.astype(np.int64); d = np.diff(v)
    np.savez_compressed(os.path.join(out, name + '.npz'), first=v[:1], diff=d.astype(np.int8 if np.abs(d).max() < 128 else np.int32))
    print(name, flush=True)
n = 1 << 23
o = cp.zeros(n, dtype=cp.uint32)
for neg in (0, 1):
    mod.get_function('grid_fixed')(((n + 255) // 256,), (256,), (o, np.int32(neg), np.uint32(n)))
    save('ex2_' + ('neg' if neg else 'pos'), o.get())
bins = {'lg2_q': (0, 0x3E800000), 'tanh_h': (1, 0x3F000000), 'tanh_1': (1, 0x3F800000), 'tanh_2': (1, 0x40000000),
        'tanh_q': (1, 0x3E800000), 'tanh_t': (1, 0x39800000), 'sin_q': (2, 0x3E800000), 'cos_q': (3, 0x3E800000)}
for name, (op, first) in bins.items():
    mod.get_function('bin')(((n + 255) // 256,), (256,), (o, np.uint32(first), np.uint32(n), np.int32(op)))
    save(name, o.get())
