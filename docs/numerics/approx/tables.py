#!/usr/bin/env python3
"""Measures the H100's approximate instructions on their base domains (run on a machine with CuPy):

  tables.py OUTDIR     writes OUTDIR/NAME.npz: the uint32 results (first, diff) of each base grid below, and
                       OUTDIR/sample.npz: 2^18 random f32 bit patterns with every f32 form's results

A base grid covers the inputs whose results determine all others under the exponent rules that
src/exec/approx.rs implements (checked afterwards over all 2^32 inputs by the campaign)."""
import os
import sys

import cupy as cp
import numpy as np

GRIDS = {
    # name: (instruction, first input bits, count)
    "rcp": ("rcp.approx.ftz.f32", 0x3F800000, 1 << 23),  # [1, 2)
    "rsqrt": ("rsqrt.approx.ftz.f32", 0x3F800000, 1 << 24),  # [1, 4)
    "sqrt": ("sqrt.approx.ftz.f32", 0x3F800000, 1 << 24),  # [1, 4)
    "lg2": ("lg2.approx.ftz.f32", 0x3F000000, 1 << 24),  # [0.5, 2)
    "lg2hi": ("lg2.approx.ftz.f32", 0x40000000, 1 << 23),  # [2, 4)
    "ex2": ("ex2.approx.ftz.f32", 0x3F000000, 1 << 23),  # [0.5, 1)
    "ex2lo": ("ex2.approx.ftz.f32", 0x3E800000, 1 << 23),  # [0.25, 0.5)
    "ex2neg": ("ex2.approx.ftz.f32", 0xBF000000, 1 << 23),  # [-1, -0.5)
}
SAMPLE_OPS = ["rcp.approx.ftz.f32", "rcp.approx.f32", "rsqrt.approx.ftz.f32", "rsqrt.approx.f32",
              "sqrt.approx.ftz.f32", "sqrt.approx.f32", "ex2.approx.ftz.f32", "ex2.approx.f32",
              "lg2.approx.ftz.f32", "lg2.approx.f32", "sin.approx.ftz.f32", "cos.approx.ftz.f32",
              "tanh.approx.f32"]

SRC = ["extern \"C\" __global__ void g%d(unsigned* out, unsigned first, unsigned n) {"
       " unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;"
       " unsigned r; asm(\"%s %%0, %%1;\" : \"=r\"(r) : \"r\"(first + i)); out[i] = r; }",
       "extern \"C\" __global__ void s%d(const unsigned* in, unsigned* out, unsigned n) {"
       " unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;"
       " unsigned r; asm(\"%s %%0, %%1;\" : \"=r\"(r) : \"r\"(in[i])); out[i] = r; }"]


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    ops = sorted({g[0] for g in GRIDS.values()} | set(SAMPLE_OPS))
    code = "\n".join(SRC[0] % (k, op) + "\n" + SRC[1] % (k, op) for k, op in enumerate(ops))
    mod = cp.RawModule(code=code, options=("-arch=sm_90",))
    for name, (op, first, n) in GRIDS.items():
        out = cp.zeros(n, dtype=cp.uint32)
        mod.get_function(f"g{ops.index(op)}")(((n + 255) // 256,), (256,), (out, np.uint32(first), np.uint32(n)))
        v = out.get().astype(np.int64)
        d = np.diff(v)
        kind = np.int8 if np.abs(d).max() < 128 else np.int32
        # Stored as the first result and the differences (results are smooth): compresses ~10x.
        np.savez_compressed(os.path.join(outdir, f"{name}.npz"), first=v[:1], diff=d.astype(kind))
        print(name, "done", flush=True)
    rng = np.random.default_rng(20261124)
    x = rng.integers(0, 1 << 32, 1 << 18, dtype=np.uint64).astype(np.uint32)
    xs = cp.asarray(x)
    res = {"x": x}
    for op in SAMPLE_OPS:
        out = cp.zeros(x.size, dtype=cp.uint32)
        mod.get_function(f"s{ops.index(op)}")(((x.size + 255) // 256,), (256,), (xs, out, np.uint32(x.size)))
        res[op.replace(".", "_")] = out.get()
    np.savez_compressed(os.path.join(outdir, "sample.npz"), **res)
    print("sample done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
