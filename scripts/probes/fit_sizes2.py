"""Fit of the normalized-coordinate -> texel position rule over all sizes (H200; sets of
tex_linear_probe.cu: round one np_*/np2_*, round two n2_*, p2_*, far_*).

Fitted rule, per axis of size W texels, f32 normalized coordinate x:
  L  = ceil(log2(W)) = bit_length(W - 1)
  N  = 21 if L <= 13 (W <= 8192), 22 if 14 <= L <= 16 (8193..65536), 23 if L == 17 (65537..131072)
       (measured: every set; boundaries 8192|8193 measured, 65536|100000 measured, the step
        between 65537 and 99999 is inferred from L)
  xf = floor(x * 2^N)       two's-complement fixed point, toward -inf, computed exactly (x * 2^N
                            is exact in f64); NaN -> 0; no wrap of the integer: it behaves as an
                            unbounded (or saturating) integer, +inf -> +huge, -inf -> -huge.
  Linear:  s = xf * W * 256 - 128 * 2^N;  q = floor((s + 2^(N-1)) / 2^N);  i = q >> 8, k = q & 255
           (texel i weight 256-k, texel i+1 weight k).
  Point:   i = floor(xf * W / 2^N) = (xf * W) >> N.
  Then the address mode folds the texel indices: clamp clamp(i, 0, W-1); wrap i mod W;
  mirror m = i mod 2W, m < W ? m : 2W-1-m.
Integer-safe equivalent used below (and suggested for Rust, all in i64):
  clamp: xf from x clamped to [-4, 4] first (same result for clamp);
  wrap:  xf mod 2^N, mirror: xf mod 2^(N+1), reduced in f64 before the i64 conversion
         (|x| >= 2^23 is an integer; +-inf -> 0 like NaN).

Usage: /work/pyenv/bin/python scripts/probes/fit_sizes2.py /work/probe_tl [/work/probe_tl2]
"""
import sys

import numpy as np

D1 = sys.argv[1] if len(sys.argv) > 1 else "/work/probe_tl"
D2 = sys.argv[2] if len(sys.argv) > 2 else D1.rstrip("/") + "2"


NOVR = None  # set to force N (used for the N-1 / N+1 columns)


def nfrac(w):
    if NOVR is not None:
        return NOVR(w)
    l = (w - 1).bit_length()
    return 21 if l <= 13 else 22 if l <= 16 else 23


def fixed(x, w, mode):
    """xf = floor(x * 2^N) as int64, reduced so that the later products fit (exactly equivalent
    for the mode)."""
    n = nfrac(w)
    xs = x.astype(np.float64) * 2.0**n  # exact
    if mode in ("clamp", "border"):
        xs = np.clip(xs, -4.0 * 2**n, 4.0 * 2**n)  # +-inf saturate
        xf = np.floor(xs)
    else:
        per = 2.0 ** (n if mode == "wrap" else n + 1)
        with np.errstate(invalid="ignore"):
            xf = np.mod(np.floor(xs), per)  # exact on integer-valued doubles; +-inf -> NaN
    xf = np.where(np.isnan(xf), 0.0, xf)  # NaN (and +-inf in wrap/mirror) -> 0
    return xf.astype(np.int64), n


def lin_pos(x, w, mode):
    xf, n = fixed(x, w, mode)
    s = xf * (w * 256) - (128 << n)
    q = (s + (1 << (n - 1))) >> n
    return q >> 8, q & 255


def pt_pos(x, w, mode):
    xf, n = fixed(x, w, mode)
    return (xf * w) >> n


def fold(i, w, mode):
    if mode == "clamp":
        return np.clip(i, 0, w - 1)
    if mode == "wrap":
        return np.mod(i, w)
    m = np.mod(i, 2 * w)
    return np.where(m < w, m, 2 * w - 1 - m)


def split(t):
    """Texel t holds (t & 4095, t >> 12) (round two)."""
    return t & 4095, t >> 12


def out4(a, b):
    p = np.zeros((len(a), 4), np.float32)
    p[:, 0], p[:, 1] = a, b
    return p


def bad_rows(p, y):
    return (p.view(np.uint32) != y.view(np.uint32)).reshape(len(p), -1).any(axis=1)


rows = []


def load(d, name, k):
    return np.fromfile(f"{d}/{name}.in", np.float32), np.fromfile(f"{d}/{name}.out", np.float32).reshape(-1, k)


def show(name, bad, n, extra=""):
    rows.append((name, bad, n))
    print(f"  {name:22s} {extra:6s} {bad:6d} / {n}")


def n2_bad(x, y, w, mode):
    i, k = lin_pos(x, w, mode)
    (a0, b0), (a1, b1) = split(fold(i, w, mode)), split(fold(i + 1, w, mode))
    p = out4((a0 * (256 - k) + a1 * k) / 256.0, (b0 * (256 - k) + b1 * k) / 256.0)
    return int(bad_rows(p, y).sum())


print(f"Round two ({D2}): linear n2_* (float2 split ramp, k1)")
for w in [4096, 5001, 6000, 8191, 8192, 8193, 12000, 16383, 16384, 16385, 32767, 32768, 32769, 65536,
          100000, 131071, 131072]:
    for mode in ["clamp", "wrap"]:
        name = f"n2_{mode}_{w}"
        x, y = load(D2, name, 4)
        show(name, n2_bad(x, y, w, mode), len(x), f"N={nfrac(w)}")
        n0 = nfrac(w)
        alt = []
        for d in (-1, 1):
            NOVR = lambda _w, d=d: n0 + d
            alt.append(n2_bad(x, y, w, mode))
            NOVR = None
        print(f"      (with N-1: {alt[0]}, with N+1: {alt[1]})")

print("Round two: point p2_clamp_* (normalized, next to texel edges)")
for w in [3, 7, 100, 1000, 1920, 4095, 5000, 6000, 8193, 65535, 65536, 131071]:
    name = f"p2_clamp_{w}"
    x, y = load(D2, name, 4)
    a, b = split(fold(pt_pos(x, w, "clamp"), w, "clamp"))
    p = out4(a, b)
    bad = bad_rows(p, y)
    n0 = nfrac(w)
    alt = []
    for d in (-1, 1):
        NOVR = lambda _w, d=d: n0 + d
        alt.append(int(bad_rows(out4(*split(fold(pt_pos(x, w, "clamp"), w, "clamp"))), y).sum()))
        NOVR = None
    # for reference: exact floor(x * W) (f64)
    with np.errstate(invalid="ignore"):
        ex = np.floor(np.nan_to_num(x.astype(np.float64), nan=0.0) * w).astype(np.int64)
    ae, be = split(np.clip(ex, 0, w - 1))
    ref = int(bad_rows(out4(ae, be), y).sum())
    show(name, int(bad.sum()), len(x), f"N={nfrac(w)}")
    print(f"      (N-1: {alt[0]}, N+1: {alt[1]}, exact floor(x*W): {ref}; NaN inputs: {int(np.isnan(x).sum())})")

print("Round two: far coordinates, NaN, infinities (linear)")
for mode in ["clamp", "wrap"]:
    for w in [7, 1000]:
        name = f"far_{mode}_{w}"
        x, y = load(D2, name, 4)
        i, k = lin_pos(x, w, mode)
        (a0, b0), (a1, b1) = split(fold(i, w, mode)), split(fold(i + 1, w, mode))
        p = out4((a0 * (256 - k) + a1 * k) / 256.0, (b0 * (256 - k) + b1 * k) / 256.0)
        show(name, int(bad_rows(p, y).sum()), len(x), f"N={nfrac(w)}")

print(f"Round one ({D1}): np_* (float ramp, k1s) with the final rule")
for w in [3, 7, 100, 255, 257, 1000, 1920, 4095, 5000, 65535]:
    for mode in ["clamp", "wrap", "mirror"]:
        name = f"np_{mode}_{w}"
        x = np.fromfile(f"{D1}/{name}.in", np.float32)
        y = np.fromfile(f"{D1}/{name}.out", np.float32).reshape(-1, 1)
        i, k = lin_pos(x, w, mode)
        t0, t1 = fold(i, w, mode), fold(i + 1, w, mode)
        p = ((t0 * (256 - k) + t1 * k) / 256.0).astype(np.float32).reshape(-1, 1)
        show(name, int(bad_rows(p, y).sum()), len(x), f"N={nfrac(w)}")
for (w, h) in [(1920, 1080), (7, 5)]:
    name = f"np2_clamp_{w}x{h}"
    c = np.fromfile(f"{D1}/{name}.in", np.float32).reshape(-1, 2)
    y = np.fromfile(f"{D1}/{name}.out", np.float32).reshape(-1, 4)
    i, k = lin_pos(c[:, 0], w, "clamp")
    j, l = lin_pos(c[:, 1], h, "clamp")
    w11 = (k * l + 128) >> 8
    w10, w01 = k - w11, l - w11
    w00 = 256 - k - l + w11
    i0, i1 = fold(i, w, "clamp"), fold(i + 1, w, "clamp")
    j0, j1 = fold(j, h, "clamp"), fold(j + 1, h, "clamp")
    p = out4((i0 * (w00 + w01) + i1 * (w10 + w11)) / 256.0, (j0 * (w00 + w10) + j1 * (w01 + w11)) / 256.0)
    show(name, int(bad_rows(p, y).sum()), len(c), f"N={nfrac(w)}/{nfrac(h)}")

tot = sum(r[1] for r in rows)
print(f"total mismatches: {tot} of {sum(r[2] for r in rows)} results in {len(rows)} sets")
