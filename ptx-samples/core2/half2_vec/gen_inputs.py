#!/usr/bin/env python3
"""Deterministic inputs for half2_vec (numpy default_rng, seed 1207). Writes inputs/*.bin (raw little-endian):
P, Q as f16 pairs, U, V as bf16 pairs (uint16 bit patterns, truncated from f32 then specials inserted)."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(1207)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

def f16pairs(scale):
    x = (rng.standard_normal(2 * N) * scale).astype(np.float16)
    return x

p, q = f16pairs(8.0), f16pairs(8.0)
p[64:128] = (rng.standard_normal(64) * 300).astype(np.float16)      # products overflow f16 (max 65504)
q[64:128] = (rng.standard_normal(64) * 300).astype(np.float16)
p[128:160] = (rng.standard_normal(32) * 1e-3).astype(np.float16)    # subnormal products
q[128:160] = (rng.standard_normal(32) * 1e-3).astype(np.float16)
p[160:176] = rng.uniform(0, 1.2, 16).astype(np.float16)             # saturation range
sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 65504.0, -65504.0, 6e-8, 0.5, 2.0, np.nan, 3.0, -0.0, 1e-4],
              np.float16)
sq = np.array([-0.0, 0.0, 2.0, np.inf, 1.0, np.nan, -1.0, 2.0, 2.0, 0.5, 0.5, np.inf, np.nan, -3.0, -0.0, 1e4], np.float16)
p[:16], q[:16] = sp, sq

def bf16(x):
    u = np.asarray(x, np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)    # RNE (no NaN inputs here)

u = bf16(rng.standard_normal(2 * N) * 8.0)
v = bf16(rng.standard_normal(2 * N) * 8.0)
u[64:128] = bf16(rng.standard_normal(64) * 1e19)                     # products overflow
v[64:128] = bf16(rng.standard_normal(64) * 1e20)
u[128:160] = bf16(rng.standard_normal(32) * 1e-20)                   # products underflow / subnormal
v[128:160] = bf16(rng.standard_normal(32) * 1e-19)
su = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x3F80, 0xBF80, 0x7F7F, 0xFF7F, 0x0001, 0x3F00, 0x4000,
               0xFFC1, 0x4040, 0x8000, 0x0080], np.uint16)
sv = np.array([0x8000, 0x0000, 0x4000, 0x7F80, 0x3F80, 0x7FC0, 0xBF80, 0x4000, 0x4000, 0x3F00, 0x3F00, 0x7F80,
               0x7FC0, 0xC040, 0x8000, 0x3F80], np.uint16)
u[:16], v[:16] = su, sv
for name, arr in dict(p=p, q=q).items():
    arr.view(np.uint16).tofile(os.path.join(here, "inputs", f"{name}.bin"))
for name, arr in dict(u=u, v=v).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
