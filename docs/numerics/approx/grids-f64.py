#!/usr/bin/env python3
"""The f64 approximate instructions on an H100 (CuPy and nvcc): checks over all 2^32 high words, each with a
random low word, that rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 read only the high word and write a zero low
word (rsqrt.approx.f64 without .ftz is a refined sequence that does not), and measures MUFU.RCP64H over the high
words of [1, 2) and MUFU.RSQ64H over those of [1, 4) into OUTDIR/rcp64.npz, rsq64.npz (for make-tables.py).

  grids-f64.py OUTDIR
"""
import os, sys, subprocess
import cupy as cp, numpy as np
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
K = r'''
__device__ __forceinline__ unsigned long long mix(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31); }
template <int OP> __device__ double f(double a) { double d;
  if (OP == 0) asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(d) : "d"(a));
  else if (OP == 1) asm("rsqrt.approx.f64 %0, %1;" : "=d"(d) : "d"(a));
  else asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(d) : "d"(a));
  return d; }
template <int OP> __device__ void lowword(unsigned long long* bad, unsigned* ex, unsigned long long base) {
  unsigned long long i = base + blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned hi = (unsigned)i, lo = (unsigned)mix(i);
  double a0 = __hiloint2double(hi, 0), a1 = __hiloint2double(hi, lo);
  unsigned long long r0 = __double_as_longlong(f<OP>(a0)), r1 = __double_as_longlong(f<OP>(a1));
  if ((r0 & 0xffffffffull) != 0 || (r1 >> 32) != (r0 >> 32) || (r1 & 0xffffffffull) != 0) {
    unsigned long long k = atomicAdd(bad, 1ull); if (k < 16) { ex[4*k] = hi; ex[4*k+1] = lo; ex[4*k+2] = (unsigned)(r0 >> 32); ex[4*k+3] = (unsigned)(r1 >> 32); } } }
extern "C" __global__ void lowword0(unsigned long long* b, unsigned* e, unsigned long long s) { lowword<0>(b, e, s); }
extern "C" __global__ void lowword1(unsigned long long* b, unsigned* e, unsigned long long s) { lowword<1>(b, e, s); }
extern "C" __global__ void lowword2(unsigned long long* b, unsigned* e, unsigned long long s) { lowword<2>(b, e, s); }
extern "C" __global__ void grid(unsigned* o, unsigned first, unsigned n, int op) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  double a = __hiloint2double(first + i, 0);
  double d = op == 0 ? f<0>(a) : (op == 1 ? f<1>(a) : f<2>(a));
  o[i] = (unsigned)(__double_as_longlong(d) >> 32); }
extern "C" __global__ void sass_only(double* o, const double* a) {
  o[threadIdx.x] = f<0>(a[threadIdx.x]); o[32 + threadIdx.x] = f<1>(a[threadIdx.x]); o[64 + threadIdx.x] = f<2>(a[threadIdx.x]); }
'''
open('/tmp/k4.cu', 'w').write(K)
subprocess.run(['nvcc', '-arch=sm_90', '-cubin', '-O3', '/tmp/k4.cu', '-o', '/tmp/k4.cubin'], check=True)
open(os.path.join(out, 'k4.sass'), 'w').write(subprocess.run(['cuobjdump', '-sass', '-fun', 'sass_only', '/tmp/k4.cubin'], capture_output=True, text=True).stdout)
mod = cp.RawModule(path='/tmp/k4.cubin')
for op in range(3):
    bad = cp.zeros(1, cp.uint64); ex = cp.zeros(64, cp.uint32)
    fn = mod.get_function(f'lowword{op}')
    for base in range(0, 1 << 32, 1 << 30):
        fn(((1 << 30) // 256,), (256,), (bad, ex, np.uint64(base)))
    print('op', op, 'low-word violations', int(bad.get()[0]), ex.get()[:16], flush=True)
def save(name, v):
    v = v.astype(np.int64); d = np.diff(v)
    np.savez_compressed(os.path.join(out, name + '.npz'), first=v[:1], diff=d.astype(np.int8 if np.abs(d).max() < 128 else np.int32))
for name, op, first, n in [("rcp64", 0, 0x3FF00000, 1 << 20), ("rsq64", 2, 0x3FF00000, 1 << 21)]:
    o = cp.zeros(n, cp.uint32)
    mod.get_function('grid')(((n + 255) // 256,), (256,), (o, np.uint32(first), np.uint32(n), np.int32(op)))
    save(name, o.get()); print(name, flush=True)
