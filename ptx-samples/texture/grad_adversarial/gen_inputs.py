#!/usr/bin/env python3
"""Writes inputs/*.bin for this sample (deterministic: numpy's PCG64 seeded 23)."""
import numpy as np

rng = np.random.default_rng(23)
N = 8192


def level_sizes(dims, levels):
    return [int(np.prod([max(1, d >> lv) for d in dims])) for lv in range(levels)]


def wide_f32(n):
    return (rng.uniform(1, 2, n) * np.exp2(rng.integers(-20, 20, n)) * rng.choice([-1, 1], n)).astype(np.float32)


g = np.zeros((N, 6), np.float32)
g[:, 0:2] = rng.uniform(-0.1, 1.1, (N, 2))
g[:, 2:] = rng.choice([-1, 1], (N, 4)) * np.exp2(rng.uniform(-14, 6, (N, 4)))
kind = rng.integers(0, 12, N)
g[kind == 0, 2:] = 0.0                                         # no footprint at all
g[kind == 1, 3] = g[kind == 1, 4] = 0.0                       # axis-aligned
one = np.flatnonzero(kind == 2)
g[one, 2 + rng.integers(0, 4, one.size)] = 0.0
sp = np.array([np.nan, np.inf, -np.inf, 1e-40, -1e-40, 3e38, -0.0, 1.0], np.float32)
spec = np.flatnonzero(kind == 3)
g[spec, 2 + rng.integers(0, 4, spec.size)] = rng.choice(sp, spec.size)
eq = np.flatnonzero(kind == 4)
m = rng.choice([-1, 1], eq.size) * np.exp2(rng.uniform(-10, 2, eq.size))
g[eq, 2:] = (m[:, None] * rng.choice([-1, 1, 2, -2, 3], (eq.size, 4))).astype(np.float32)
g.tofile("inputs/grads.bin")
np.concatenate([wide_f32(s) for s in level_sizes([127, 255], 8)]).tofile("inputs/g1.bin")
np.concatenate([wide_f32(s) for s in level_sizes([4095], 12)]).tofile("inputs/g2.bin")
rng.integers(0, 256, sum(level_sizes([1023, 33], 10)) * 4).astype(np.uint8).tofile("inputs/g3.bin")
np.concatenate([wide_f32(s) for s in level_sizes([64, 64], 7)]).tofile("inputs/g4.bin")
