#!/usr/bin/env python3
"""Writes inputs/*.bin for this sample (deterministic: numpy's PCG64 seeded 17)."""
import numpy as np

rng = np.random.default_rng(17)
N, B = 10240, 1024


def ulps(x, k):
    x = np.asarray(x, np.float32)
    return (x.view(np.int32) + np.asarray(k, np.int32)).view(np.float32)


def axis(size, normalized, lo, hi, m=B):
    """m coordinates on an axis of `size` texels: random, next to the filter's 1/256 steps, next to
    texel edges (a few ulps either side), and specials."""
    scale = size if normalized else 1
    r = rng.uniform(lo, hi, m)
    u = np.floor(rng.uniform(lo * size * 256, hi * size * 256, m)) + 0.5
    step = (u / 256 + 0.5) / scale
    edge = rng.integers(int(np.floor(lo * size)), int(np.ceil(hi * size)) + 1, m) / scale
    pick = rng.integers(0, 3, m)
    x = np.where(pick == 0, r, np.where(pick == 1, step, edge)).astype(np.float32)
    x = ulps(x, rng.integers(-8, 9, m) * (pick > 0) * (x != 0))
    sp = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1e-40, 1e-40, 3e38, -3e38, 0.5, 1.0, -1.0], np.float32)
    x[rng.choice(m, 24, replace=False)] = rng.choice(sp, 24)
    return x


def block(sizes, normalized, lo, hi):
    cols = [axis(s, normalized, lo, hi) for s in sizes]
    while len(cols) < 4:
        cols.append(np.zeros(B, np.float32))
    return np.stack(cols, 1)


blocks = [
    block([8, 6, 5], True, -1.5, 2.5),        # t3f: 3D f32, wrap
    block([16, 16, 16], True, -0.3, 1.3),     # t3u: 3D u8x4, border
    block([100], False, -3, 103),             # t1b: 1D f32, border, unnormalized
    block([30, 20], True, -0.3, 1.3),         # t2b: 2D f32x2, border
    block([64, 48], False, -3, 67),           # t2h: 2D half, clamp, unnormalized
    block([40, 24], True, -1.5, 2.5),         # t2s: 2D s8x2, wrap
    block([9000, 3], True, -0.2, 1.2),        # t2n: 2D f32 9000 x 3, clamp
    block([100000], True, -0.2, 1.2),         # t1p: 1D f32 100000, point
    block([1000], True, -1.5, 2.5),           # t1w: 1D f32 1000, mirror
    block([8, 8], True, -0.3, 1.3),           # t2p: 2D u16x2, point, border
]
np.concatenate(blocks).astype(np.float32).tofile("inputs/coords.bin")


def wide_f32(n):
    """Random f32 texels of wide exponents, with zeros of both signs and subnormals."""
    v = (rng.uniform(1, 2, n) * np.exp2(rng.integers(-30, 30, n)) * rng.choice([-1, 1], n)).astype(np.float32)
    kind = rng.integers(0, 10, n)
    v[kind == 0] = 0.0
    v[kind == 1] = -0.0
    sub = rng.integers(1, 1 << 23, (kind == 2).sum()) | (rng.integers(0, 2, (kind == 2).sum()) << 31)
    v[kind == 2] = sub.astype(np.uint32).view(np.float32)
    return v


wide_f32(8 * 6 * 5).tofile("inputs/t3f.bin")
rng.integers(0, 256, 16 * 16 * 16 * 4).astype(np.uint8).tofile("inputs/t3u.bin")
wide_f32(100).tofile("inputs/t1b.bin")
wide_f32(30 * 20 * 2).tofile("inputs/t2b.bin")
h = rng.integers(0, 1 << 16, 64 * 48).astype(np.uint16)
h[rng.random(h.size) < 0.2] &= 0x83FF                      # subnormals and zeros
h[(h & 0x7C00) == 0x7C00] = 0x3C00                          # infinities and NaN only where placed:
h[rng.choice(h.size, 8, replace=False)] = [0x7C00, 0xFC00, 0x7E00, 0xFC00, 0x0000, 0x8000, 0x7BFF, 0x7C00]
h.tofile("inputs/t2h.bin")
rng.integers(-128, 128, 40 * 24 * 2).astype(np.int8).tofile("inputs/t2s.bin")
rng.integers(0, 1 << 16, 8 * 8 * 2).astype(np.uint16).tofile("inputs/t2p.bin")
