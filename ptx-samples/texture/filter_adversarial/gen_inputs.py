#!/usr/bin/env python3
"""Writes inputs/*.bin for this sample (deterministic: numpy's PCG64 seeded 7)."""
import numpy as np

rng = np.random.default_rng(7)


def texels(n):
    mag = rng.uniform(-1, 1, n) * np.exp2(rng.integers(-24, 24, n).astype(np.float64))
    v = mag.astype(np.float32)
    special = rng.random(n)
    v[special < 0.02] = np.float32(1e-40) * rng.choice([-1, 1], np.sum(special < 0.02))   # subnormal
    v[(special >= 0.02) & (special < 0.025)] = np.inf
    v[(special >= 0.025) & (special < 0.03)] = -np.inf
    v[(special >= 0.03) & (special < 0.035)] = np.nan
    v[(special >= 0.035) & (special < 0.05)] = 0.0
    same = (special >= 0.05) & (special < 0.1)   # runs of equal texels
    v[1:][same[1:]] = v[:-1][same[1:]]
    return v


def coords(n, size):
    base = rng.integers(-4, size + 4, n).astype(np.float64)
    kind = rng.integers(0, 6, n)
    frac = rng.random(n)
    # boundaries of the 1/256 weight rounding: c - 0.5 = i + (k + 1/2)/256, and texel centres
    k = rng.integers(0, 256, n)
    frac = np.where(kind == 1, 0.5 + (k + 0.5) / 256, frac)
    frac = np.where(kind == 2, 0.5, frac)
    c = (base + frac).astype(np.float32)
    step = rng.integers(-3, 4, n).astype(np.int32)
    c = np.where(kind == 1, (c.view(np.int32) + step).view(np.float32), c)   # a few ulps either side
    c[kind == 3] = rng.uniform(-1e6, 1e6, np.sum(kind == 3)).astype(np.float32)
    return c


n = 16384
lin = texels(4096)
xs = coords(n, 4096)
xs[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 4096.0, 0.5, 4095.5]
img = np.stack([texels(64 * 64) for _ in range(4)], axis=1).astype(np.float32)
xy = np.stack([coords(n, 64), coords(n, 64)], axis=1).astype(np.float32)
for name, a in [("lin", lin), ("xs", xs), ("img", img), ("xy", xy)]:
    a.astype(np.float32).tofile(f"inputs/{name}.bin")
