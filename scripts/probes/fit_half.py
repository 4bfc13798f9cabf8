"""Fit of the H100/H200 linear filter for half (fp16) texels read as float.

Model (per result, texels t_j (fp16) with integer weights w_j summing to 256):
  * specials: among texels in the footprint (1D: weight > 0; 2D: both own axis weights > 0),
    any NaN -> result fp16 0x7FFF (f32 0x7FFFE000); infinities all of one sign -> that
    infinity; infinities of both signs -> 0x7FFF.
  * every finite texel is the integer m_j = t_j * 2^24 (exact, subnormals kept).
    B = max bit length of |m_j| over texels with weight > 0.
    each |m_j| is truncated toward zero to a multiple of 2^max(B - 15, 0)
    (i.e. 15 significant bits below the leading bit of the largest texel).
  * S = sum w_j * trunc(m_j)  (exact integer), value = S * 2^-32.
  * rounded to fp16: 11 significant bits, or the fp16 subnormal step 2^-24, to nearest,
    ties away from zero; result returned as the f32 of that half.
  * zero result: -0 only when every weighted texel is zero and negative (else +0).
Usage: python fit_half.py /work/probe_tl
"""
import sys
import numpy as np

D = (sys.argv[1] if len(sys.argv) > 1 else '/work/probe_tl').rstrip('/') + '/'
NBITS = 15


def bitlen(a):
    a = a.copy()
    bl = np.zeros_like(a)
    for s in [32, 16, 8, 4, 2, 1]:
        t = a >= (1 << s)
        bl = np.where(t, bl + s, bl)
        a = np.where(t, a >> s, a)
    return bl + (a > 0)


def half_int(u):
    """fp16 bits -> (signed integer value*2^24, magnitude, is_neg, is_special, is_nan)."""
    u = u.astype(np.int64)
    ex = (u >> 10) & 31
    man = u & 1023
    mag = np.where(ex == 0, man, (man | 1024) << np.maximum(ex - 1, 0))
    mag = np.where(ex == 31, 0, mag)
    neg = (u & 0x8000) != 0
    return mag, neg, ex == 31, (ex == 31) & (man != 0)


def round_f16_away(S, scale):
    """Round S * 2^scale (S signed int64) to fp16, nearest, ties away. Returns uint16 bits."""
    neg = S < 0
    a = np.abs(S)
    bl = bitlen(a)
    lsb = np.maximum(bl + scale - 11, -24)       # exponent of the result's last bit
    sh = lsb - scale                              # bits dropped (may be <= 0)
    shp = np.maximum(sh, 0)
    q = a >> shp
    rem = a - (q << shp)
    half = np.where(shp > 0, np.left_shift(1, np.maximum(shp - 1, 0)), 0)
    q = np.where(sh > 0, q + ((rem >= half) & (shp > 0)), a << np.maximum(-sh, 0))
    # q * 2^lsb, q < 2^11 (2^11 after a carry is still exact)
    val = q.astype(np.float64) * np.exp2(lsb.astype(np.float64))
    with np.errstate(over='ignore'):
        h = val.astype(np.float16).view(np.uint16)   # exact (or inf above 65504)
    return h | np.where(neg, 0x8000, 0).astype(np.uint16)


def blend(texels, weights, foot):
    """texels: list of uint16 arrays, weights: list of int arrays (sum 256), foot: list of bool
    arrays (texel's specials reach the result). Returns float32 results."""
    parts = [half_int(t) for t in texels]
    n = len(texels[0])
    B = np.zeros(n, dtype=np.int64)
    for (mag, neg, sp, nan), w in zip(parts, weights):
        B = np.maximum(B, np.where(w > 0, bitlen(mag), 0))
    sh = np.maximum(B - NBITS, 0)
    S = np.zeros(n, dtype=np.int64)
    allzero_neg = np.ones(n, dtype=bool)
    for (mag, neg, sp, nan), w in zip(parts, weights):
        tq = (mag >> sh) << sh
        S += np.where(neg, -tq, tq) * w
        allzero_neg &= (w == 0) | ((mag == 0) & neg)
    h = round_f16_away(S, -32)
    h = np.where((S == 0) & allzero_neg, 0x8000, h).astype(np.uint16)
    # specials
    anynan = np.zeros(n, dtype=bool)
    pinf = np.zeros(n, dtype=bool)
    ninf = np.zeros(n, dtype=bool)
    for (mag, neg, sp, nan), f in zip(parts, foot):
        anynan |= f & nan
        pinf |= f & sp & ~nan & ~neg
        ninf |= f & sp & ~nan & neg
    h = np.where(pinf, 0x7C00, h)
    h = np.where(ninf, 0xFC00, h)
    h = np.where(anynan | (pinf & ninf), 0x7FFF, h).astype(np.uint16)
    return h.view(np.float16).astype(np.float32)


def lerp_pos(c):
    b = c.astype(np.float64) - 0.5
    f = np.floor(b)
    k = np.minimum(np.floor((b - f) * 256 + 0.5), 256).astype(np.int64)
    return f.astype(np.int64), k


def report(name, got, want, coords):
    gb = got.view(np.uint32)
    wb = want.view(np.uint32)
    bad = np.nonzero(gb != wb)[0]
    print(f'{name}: {len(bad)} mismatches of {len(wb)}')
    for q in bad[:10]:
        print('   coord', coords[q], 'expected %08x model %08x' % (wb[q], gb[q]))


def main():
    tx = np.fromfile(D + 'h1.texels', dtype=np.uint16)
    n = len(tx)
    # h1: 1D, unnormalized, clamp
    x = np.fromfile(D + 'h1.in', dtype=np.float32)
    out = np.fromfile(D + 'h1.out', dtype=np.float32)
    i, k = lerp_pos(x)
    i0 = np.clip(i, 0, n - 1)
    i1 = np.clip(i + 1, 0, n - 1)
    got = blend([tx[i0], tx[i1]], [256 - k, k], [256 - k > 0, k > 0])
    report('h1', got, out, x)
    # h2: 2D 256x256, texel (x, y) = tx[y*256 + x], clamp
    c = np.fromfile(D + 'h2.in', dtype=np.float32).reshape(-1, 2)
    out = np.fromfile(D + 'h2.out', dtype=np.float32)
    ix, kx = lerp_pos(c[:, 0])
    iy, ky = lerp_pos(c[:, 1])
    x0, x1 = np.clip(ix, 0, 255), np.clip(ix + 1, 0, 255)
    y0, y1 = np.clip(iy, 0, 255), np.clip(iy + 1, 0, 255)
    w11 = (kx * ky + 128) >> 8
    w10 = kx - w11
    w01 = ky - w11
    w00 = 256 - kx - ky + w11
    T = tx.reshape(256, 256)
    fx0, fx1, fy0, fy1 = 256 - kx > 0, kx > 0, 256 - ky > 0, ky > 0
    got = blend([T[y0, x0], T[y0, x1], T[y1, x0], T[y1, x1]], [w00, w10, w01, w11],
                [fx0 & fy0, fx1 & fy0, fx0 & fy1, fx1 & fy1])
    report('h2', got, out, c)


if __name__ == '__main__':
    main()
