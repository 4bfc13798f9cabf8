#!/usr/bin/env python3
"""Measures MUFU.SIN, MUFU.COS and MUFU.TANH through sin/cos/tanh.approx over every f32 input (run from the
repository root on a machine with CuPy and nvcc): builds the sine and cosine tables of a whole revolution at
2^-25 (the index of an input x is the fraction of RZ(x / 2 pi) truncated to 25 bits), checks that model
against all 2^32 inputs, checks tanh odd, finds per exponent which fraction bits tanh ignores, where it is the
identity and where it saturates, and writes OUTDIR/sin.zz, cos.zz, tanh.zz (the tables src/exec/sfu.rs embeds).

  sincos-tanh.py OUTDIR
"""
import os, sys, subprocess, importlib.util
import cupy as cp, numpy as np
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
spec = importlib.util.spec_from_file_location("mt", "docs/numerics/approx/make-tables.py")
mt = importlib.util.module_from_spec(spec); spec.loader.exec_module(mt)
K = r'''
__device__ __forceinline__ unsigned qof(float t) {
  unsigned b = __float_as_uint(t) & 0x7fffffffu; int e = b >> 23;
  unsigned long long sig = e ? ((b & 0x7fffffu) | 0x800000u) : 0; int sh = e - 125;
  unsigned long long q = sh >= 0 ? (sh > 40 ? 0 : (sig << sh)) : (-sh > 63 ? 0 : (sig >> -sh));
  return (unsigned)(q & ((1u << 25) - 1)); }
__device__ __forceinline__ float trev(float x) { float t; asm("mul.rz.f32 %0, %1, 0f3E22F983;" : "=f"(t) : "f"(x)); return t; }
extern "C" __global__ void sc_fill(unsigned* S, unsigned* C, unsigned* reach, unsigned long long base) {
  unsigned long long i = base + blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned xb = (unsigned)i; if ((xb >> 23) == 0xff) return;
  float x = __uint_as_float(xb), s, c;
  asm("sin.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(x)); asm("cos.approx.ftz.f32 %0, %1;" : "=f"(c) : "f"(x));
  unsigned q = qof(trev(x)); S[q] = __float_as_uint(s); C[q] = __float_as_uint(c); reach[q] = 1; }
extern "C" __global__ void sc_check(const unsigned* S, const unsigned* C, unsigned long long* bad, unsigned* ex, unsigned long long base) {
  unsigned long long i = base + blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned xb = (unsigned)i; if (((xb >> 23) & 0xff) == 0xff) return;
  float x = __uint_as_float(xb), s, c;
  asm("sin.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(x)); asm("cos.approx.ftz.f32 %0, %1;" : "=f"(c) : "f"(x));
  float t = trev(x); unsigned q = qof(t);
  unsigned ws = S[q] ^ (__float_as_uint(t) & 0x80000000u);
  if (__uint_as_float(xb & 0x7fffffffu) != 0.0f && (xb & 0x7f800000u) == 0) ws = xb & 0x80000000u; // flushed input
  if (__float_as_uint(s) != ws) { unsigned long long k = atomicAdd(bad, 1ull); if (k < 64) { ex[4*k] = xb; ex[4*k+1] = __float_as_uint(s); ex[4*k+2] = ws; ex[4*k+3] = 0; } }
  unsigned wc = C[q];
  if (__float_as_uint(c) != wc) { unsigned long long k = atomicAdd(bad + 1, 1ull); if (k < 64) { ex[256+4*k] = xb; ex[256+4*k+1] = __float_as_uint(c); ex[256+4*k+2] = wc; ex[256+4*k+3] = 1; } } }
extern "C" __global__ void tanh_bin(unsigned* r, unsigned first) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(__uint_as_float(first + i))); r[i] = __float_as_uint(y); }
extern "C" __global__ void tanh_sym(unsigned long long* bad, unsigned long long base) {
  unsigned long long i = base + blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned xb = (unsigned)i; if ((xb >> 23) >= 0xff) return; float a, b;
  asm("tanh.approx.f32 %0, %1;" : "=f"(a) : "f"(__uint_as_float(xb)));
  asm("tanh.approx.f32 %0, %1;" : "=f"(b) : "f"(__uint_as_float(xb | 0x80000000u)));
  if ((__float_as_uint(a) ^ 0x80000000u) != __float_as_uint(b)) atomicAdd(bad, 1ull); }
extern "C" __global__ void sass_only(float* o, const float* a) {
  float r; unsigned i = threadIdx.x;
  asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(a[i])); o[i] = r;
  asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(a[i])); o[32+i] = r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(a[i])); o[64+i] = r; }
'''
open('/tmp/k3.cu', 'w').write(K)
subprocess.run(['nvcc', '-arch=sm_90', '-cubin', '-O3', '/tmp/k3.cu', '-o', '/tmp/k3.cubin'], check=True)
open(os.path.join(out, 'k3.sass'), 'w').write(subprocess.run(['cuobjdump', '-sass', '-fun', 'sass_only', '/tmp/k3.cubin'], capture_output=True, text=True).stdout)
mod = cp.RawModule(path='/tmp/k3.cubin')
N = 1 << 25
S = cp.zeros(N, cp.uint32); C = cp.zeros(N, cp.uint32); reach = cp.zeros(N, cp.uint32)
step = 1 << 30
for base in range(0, 1 << 31, step):
    mod.get_function('sc_fill')((step // 256,), (256,), (S, C, reach, np.uint64(base)))
bad = cp.zeros(2, cp.uint64); ex = cp.zeros(512, cp.uint32)
for base in range(0, 1 << 32, step):
    mod.get_function('sc_check')((step // 256,), (256,), (S, C, bad, ex, np.uint64(base)))
print('sin/cos model violations', bad.get(), 'reachable q', int(reach.sum()), flush=True)
np.save(os.path.join(out, 'sc_ex.npy'), ex.get())
Sh, Ch, Rh = S.get(), C.get(), reach.get()
np.save(os.path.join(out, 'reach_idx.npy'), np.nonzero(Rh == 0)[0].astype(np.uint32)[:1000])
# fill unreachable entries with the previous reachable value (never read by any input)
prev = np.where(Rh == 1, np.arange(N), 0); np.maximum.accumulate(prev, out=prev)
nxt = np.where(Rh == 1, np.arange(N), N - 1)[::-1].copy(); np.minimum.accumulate(nxt, out=nxt); nxt = nxt[::-1]
for T, name in [(Sh, 'sin'), (Ch, 'cos')]:
    f = T.view(np.float32).astype(np.float64)
    # an unreachable entry (no input reads it) gets the midpoint of its reachable neighbours, keeping the table smooth
    mid = ((f[prev] + f[nxt]) / 2).astype(np.float32).view(np.uint32)
    mt.write_smooth(name, np.where(Rh == 1, T, mid), out=out)
np.save(os.path.join(out, 'reach.npy'), np.packbits(Rh.astype(np.uint8)))
# tanh: per binade granularity, identity and saturation
bad = cp.zeros(1, cp.uint64)
for base in range(0, 1 << 31, step):
    mod.get_function('tanh_sym')((step // 256,), (256,), (bad, np.uint64(base)))
print('tanh odd-symmetry violations', int(bad.get()[0]), flush=True)
r = cp.zeros(1 << 23, cp.uint32); meta = []; vals = []
for e in range(255):
    mod.get_function('tanh_bin')(((1 << 23) // 256,), (256,), (r, np.uint32(e << 23)))
    x = cp.arange(1 << 23, dtype=cp.uint32) + np.uint32(e << 23)
    ident = bool((r == x).all()); sat = bool((r == 0x3F800000).all())
    g = 0
    for k in range(1, 24):
        blk = r.reshape(-1, 1 << k)
        if bool((blk == blk[:, :1]).all()): g = k
        else: break
    meta.append((e, ident, sat, g))
    if not ident and not sat:
        vals.append(r[:: 1 << g].get())
print('tanh meta', [m for m in meta if not m[1] and not m[2]], flush=True)
print('tanh ident', [m[0] for m in meta if m[1]], 'sat', [m[0] for m in meta if m[2]], flush=True)
np.save(os.path.join(out, 'tanh_meta.npy'), np.array(meta, dtype=np.int64))
mt.write_smooth('tanh', np.concatenate(vals), out=out)
