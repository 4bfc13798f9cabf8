#!/usr/bin/env python3
"""Writes inputs/*.bin for this sample (deterministic: numpy's PCG64 seeded 11)."""
import numpy as np

rng = np.random.default_rng(11)
N = 16384
W = 16


def refused(d):
    """What ptxrun refuses (src/exec/texcube.rs): non-finite, subnormal or >= 2^126 components,
    or one an ulp below the largest magnitude. The GPU treats those otherwise or inconsistently."""
    a = np.abs(d)
    bits = a.view(np.uint32).astype(np.int64)
    top = bits.max(1, keepdims=True)
    bad = ~np.isfinite(d).all(1) | ((a > 0) & (a < np.float32(2.0 ** -126))).any(1)
    return bad | (a >= np.float32(2.0 ** 126)).any(1) | ((bits == top - 1) & (top > 0)).any(1)


def directions():
    out = []
    out.append(rng.uniform(-1, 1, (4096, 3)))
    # texel boundaries and face edges: s = (2k/W - 1) * m, a few ulps either side
    m = rng.choice([-1, 1], 6144) * np.exp2(rng.uniform(-6, 6, 6144))
    v = rng.uniform(-1, 1, (6144, 3)) * np.abs(m)[:, None]
    axis = rng.integers(0, 3, 6144)
    v[np.arange(6144), axis] = m
    for j in (1, 2):
        other = (axis + j) % 3
        k = rng.integers(0, W + 1, 6144)
        s = ((2.0 * k / W - 1) * np.abs(m)).astype(np.float32)
        s = (s.view(np.int32) + (rng.integers(-3, 4, 6144) * (s != 0)).astype(np.int32)).view(np.float32)
        pick = rng.random(6144) < 0.7
        v[np.flatnonzero(pick), other[pick]] = s[pick]
    out.append(v)
    # exact ties and zeros
    a = np.exp2(rng.uniform(-8, 8, 2048))
    t = np.stack([a * rng.choice([-1, 1], 2048), a * rng.choice([-1, 1], 2048), rng.uniform(-1, 1, 2048) * a], 1)
    three = rng.random(2048) < 0.3
    t[three, 2] = a[three] * rng.choice([-1, 1], three.sum())
    for r in range(2048):
        t[r] = np.roll(t[r], rng.integers(0, 3))
    out.append(t)
    z = rng.choice([0.0, -0.0, 1.0, -1.0, 0.5], (1024, 3))
    out.append(z)
    d = np.concatenate(out).astype(np.float32)
    d = d[~refused(d)]
    rest = rng.uniform(-1, 1, (N - len(d), 3)).astype(np.float32)
    d = np.concatenate([d, rest[~refused(rest)]])[:N]
    assert len(d) == N
    return np.concatenate([d, np.zeros((N, 1), np.float32)], 1)


def lods():
    xy = rng.uniform(-0.1, 1.1, (N, 2))
    step = rng.integers(-256, 9 * 256, (N, 2)) / 256.0
    tiny = rng.choice([0.0, 0.0, 1e-6, -1e-6, 0.5 / 256, 128 / 256], (N, 2))
    lod = step + tiny + rng.choice([0.0, 0.0, 0.0, 0.3, -0.7], (N, 2))
    special = rng.random(N) < 0.02
    lod[special, 0] = rng.choice([np.nan, np.inf, -np.inf, -0.0], special.sum())
    return np.concatenate([xy, lod], 1).astype(np.float32)


def u8_levels():
    n = sum(max(1, 64 >> l) ** 2 for l in range(7))
    return rng.integers(0, 256, n * 4).astype(np.uint8)


def f32_levels():
    n = sum(256 >> l for l in range(9))
    return (rng.choice([-1, 1], n) * np.exp2(rng.uniform(-10, 10, n))).astype(np.float32)


directions().tofile("inputs/dirs.bin")
lods().tofile("inputs/lods.bin")
rng.uniform(-4, 4, 6 * W * W).astype(np.float32).tofile("inputs/cube.bin")
u8_levels().tofile("inputs/mu8.bin")
f32_levels().tofile("inputs/mf32.bin")


def f32_levels_2d():
    n = sum(max(1, 64 >> l) * max(1, 32 >> l) for l in range(7))
    v = rng.choice([-1, 1], n) * np.exp2(rng.uniform(-20, 20, n))
    kind = rng.random(n)
    v[kind < 0.05] = 0.0
    v[(kind >= 0.05) & (kind < 0.07)] = 1e-40 * rng.choice([-1, 1], ((kind >= 0.05) & (kind < 0.07)).sum())
    v[:64 * 4] = 0.0   # four rows of level 0 all zero
    return v.astype(np.float32)


f32_levels_2d().tofile("inputs/mf2.bin")
