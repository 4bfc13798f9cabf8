#!/usr/bin/env python3
"""Deterministic inputs for float_int_convert (numpy default_rng, seed 303). Writes inputs/*.bin (raw little-endian).
Specials first (ties, the edges of every integer range, NaN, infinities, signed zeros), then random values."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(303)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

def bits32(v):
    return np.array(v, dtype=np.uint32).view(np.float32)

def bits64(v):
    return np.array(v, dtype=np.uint64).view(np.float64)

fs = np.concatenate([
    bits32([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x00000001, 0x80000001]),
    np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997, 1.0, -1.0, -0.75, 0.75,
              2147483648.0, -2147483648.0, 2147483520.0, -2147483904.0, 4294967296.0, 4294967040.0,
              9.223372e18, -9.223372e18, 9.2233720368547758e18, -9.2233720368547758e18, 1.8446743e19, 1.8446744e19,
              1e30, -1e30, 8388607.5, -8388607.5, 16777215.0, 3.4028235e38, -3.4028235e38, 123.456], dtype=np.float32)])
ds = np.concatenate([
    bits64([0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x0000000000000001]),
    np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2147483647.5, -2147483648.5, 2147483647.4, -2147483648.4,
              4294967295.5, 4294967295.4, 4294967296.0, -0.9999999, 9007199254740993.0, -9007199254740993.0,
              9.223372036854775e18, 9.2233720368547758e18, -9.2233720368547758e18, -9.223372036854778e18,
              1.8446744073709550e19, 1.8446744073709552e19, 1e300, -1e300,
              3.4028235677973366e38, 3.4028236e38, 3.402823669209385e38, 1.0e-45, 7.0e-46, 1.4e-45, -1.0e-46, 1.1754942e-38,
              1.0000000596046448, 1.0000000596046449, 1.0000001788139343, -1.0000000596046448], dtype=np.float64)])

def wide32(k):
    e = rng.integers(-30, 70, k)
    return (rng.uniform(-1, 1, k) * np.exp2(e)).astype(np.float32)

def wide64(k):
    e = rng.integers(-30, 70, k)
    return rng.uniform(-1, 1, k) * np.exp2(e)

f = wide32(N); f[: len(fs)] = fs
g = wide32(N)
g[: len(fs)] = fs[::-1]                     # NaN/zero/inf partners for fminf/fmaxf/copysignf
g[len(fs): 2 * len(fs)] = fs
d = wide64(N); d[: len(ds)] = ds
e = wide64(N); e[: len(ds)] = ds[::-1]
d[len(ds): len(ds) + 6] = [0.0, -0.0, np.nan, 0.0, np.inf, -np.inf]
e[len(ds): len(ds) + 6] = [-0.0, 0.0, 1.0, np.nan, np.nan, -0.0]

iv = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
iv[:12] = [2**31 - 1, -2**31, 16777217, -16777217, 16777219, 33554435, 0, -1, 1, 2**30 + 1, -(2**30 + 65), 0x7FFFFF81]
lv = rng.integers(-2**63, 2**63 - 1, N, dtype=np.int64)
lv[64:128] >>= rng.integers(0, 63, 64)        # spread the magnitudes
lv[:14] = [2**63 - 1, -2**63, 2**53 + 1, -(2**53 + 1), 2**24 + 1, -(2**24 + 1), -1, 0, 1,
           2**62 + 2**38 + 1, 0x7FFFFF8000000000, -0x7FFFFF8000000001, 2**53 + 3, 0x0000008000000001]

for name, arr in dict(f=f, g=g, d=d, e=e, iv=iv, lv=lv).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
