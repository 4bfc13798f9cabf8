"""Fit of the linear-filter position for NORMALIZED coordinates (H200, tex_linear_probe.cu sets
np_{clamp,wrap,mirror}_W and np2_clamp_WxH).

Fitted rule (per axis, size W texels, f32 normalized coordinate x):
  xf = floor(x * 2^N)                 x as two's-complement fixed point, N fraction bits,
                                      truncated toward -inf (NOT toward zero, NOT rounded)
  N  = 21 for W in 3..5000 (and 1920x1080, 7x5 in 2D); 22 for W = 65535
       (the switch point between 5001 and 65535 is not measured)
  s  = xf * W * 256 - 128 * 2^N       = (c - 0.5) * 256 * 2^N with c = xf * W / 2^N, exact
  q  = floor((s + 2^(N-1)) / 2^N)     = floor((c - 0.5) * 256 + 1/2)
  i  = q >> 8 (floor), k = q & 255    texels i and i+1, weight k/256 on i+1
  (equivalently: c = xf * W / 2^N computed exactly, then the existing lerp_pos(c)).
Address modes fold the two texel INDICES afterwards: clamp: clamp(i, 0, W-1); wrap: i mod W;
mirror: m = i mod 2W, m < W ? m : 2W-1-m. (Folding x first -- frac(x) -- gives identical results
because the fixed-point conversion is exact under integer shifts of x.)
For W = 2^n with n <= 12 and N = 21 this is identical to the exact rule lerp_pos(x * W) (shown
below on synthetic coordinates); for n >= 13 it is not.

Usage: /work/pyenv/bin/python scripts/probes/fit_nonpow2.py /work/probe_tl
"""
import sys

import numpy as np

D = sys.argv[1] if len(sys.argv) > 1 else "/work/probe_tl"
SIZES = [3, 7, 100, 255, 257, 1000, 1920, 4095, 5000, 65535]
MODES = ["clamp", "wrap", "mirror"]


def nfrac(w):
    # Measured: 21 for 3..5000, 22 for 65535. Anything in between is a guess.
    return 21 if w <= 5000 else 22


def pos_fixed(x, w, n):
    """(i, k) with the fixed-point rule, exact int64 arithmetic."""
    xf = np.floor(x.astype(np.float64) * 2.0**n).astype(np.int64)  # exact: f32 * 2^n, floor
    s = xf * (w * 256) - (128 << n)
    q = (s + (1 << (n - 1))) >> n  # arithmetic shift = floor
    return q >> 8, q & 255


def pos_float(c):
    """The known rule lerp_pos(c) on an f64 coordinate (k in 0..=256)."""
    b = c - 0.5
    f = np.floor(b)
    k = np.floor((b - f) * 256 + 0.5).astype(np.int64)
    return f.astype(np.int64), k


def fold(i, w, mode):
    if mode == "clamp":
        return np.clip(i, 0, w - 1)
    if mode == "wrap":
        return np.mod(i, w)
    m = np.mod(i, 2 * w)
    return np.where(m < w, m, 2 * w - 1 - m)


def blend1(i, k, w, mode):
    # Integer ramp texels: the f32 blend is exact (values < 2^16, 8-bit weights).
    t0, t1 = fold(i, w, mode), fold(i + 1, w, mode)
    return ((t0 * (256 - k) + t1 * k) / 256.0).astype(np.float32)


def nbad(p, y):
    return int((p.view(np.uint32) != y.view(np.uint32)).sum())


print("1D sets: mismatches of fitted rule | for reference: N=21 everywhere, exact x*W (f64), f32 x*W")
total = 0
for mode in MODES:
    for w in SIZES:
        name = f"np_{mode}_{w}"
        x = np.fromfile(f"{D}/{name}.in", np.float32)
        y = np.fromfile(f"{D}/{name}.out", np.float32)
        fit = nbad(blend1(*pos_fixed(x, w, nfrac(w)), w, mode), y)
        n21 = nbad(blend1(*pos_fixed(x, w, 21), w, mode), y)
        ex = nbad(blend1(*pos_float(x.astype(np.float64) * w), w, mode), y)
        f32 = nbad(blend1(*pos_float((x * np.float32(w)).astype(np.float64)), w, mode), y)
        total += fit
        print(f"  {name:18s} N={nfrac(w)}  {fit:6d} / {len(x)}   | {n21:6d} {ex:6d} {f32:6d}")

print("2D sets (clamp; x and y ramps in channels x, y; z = w = 0):")
for (w, h) in [(1920, 1080), (7, 5)]:
    name = f"np2_clamp_{w}x{h}"
    c = np.fromfile(f"{D}/{name}.in", np.float32).reshape(-1, 2)
    y = np.fromfile(f"{D}/{name}.out", np.float32).reshape(-1, 4)
    i, k = pos_fixed(c[:, 0], w, nfrac(w))
    j, l = pos_fixed(c[:, 1], h, nfrac(h))
    w11 = (k * l + 128) >> 8
    w10, w01 = k - w11, l - w11
    w00 = 256 - k - l + w11
    i0, i1 = fold(i, w, "clamp"), fold(i + 1, w, "clamp")
    j0, j1 = fold(j, h, "clamp"), fold(j + 1, h, "clamp")
    p = np.zeros((len(c), 4), np.float32)
    p[:, 0] = (i0 * (w00 + w01) + i1 * (w10 + w11)) / 256.0
    p[:, 1] = (j0 * (w00 + w10) + j1 * (w01 + w11)) / 256.0
    bad = (p.view(np.uint32) != y.view(np.uint32)).any(axis=1)
    total += int(bad.sum())
    print(f"  {name:22s} {int(bad.sum()):6d} / {len(c)}")
print(f"total mismatches: {total}")

# Powers of two: the fixed-point rule (N = 21) against the exact rule lerp_pos(x * W), on
# coordinates like the probe's (random, and +-8 ulps around every kind of 1/256 half step).
print("pow2 (synthetic): samples where N=21 fixed point != exact lerp_pos(x*W), of 200000")
rng = np.random.default_rng(1)
for n in range(0, 17):
    w = 1 << n
    xr = rng.uniform(-2, 3, 100000).astype(np.float32)
    u = np.floor(rng.uniform(-2 * w * 256, 3 * w * 256, 100000)) + 0.5
    xa = ((u / 256.0 + 0.5) / w).astype(np.float32)
    xa = (xa.view(np.int32) + rng.integers(-8, 9, xa.size).astype(np.int32)).view(np.float32)
    x = np.concatenate([xr, xa])
    a = blend1(*pos_fixed(x, w, 21), w, "wrap")
    b = blend1(*pos_float(x.astype(np.float64) * w), w, "wrap")
    print(f"  W=2^{n:<2d} {nbad(a, b)}")
