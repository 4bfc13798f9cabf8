#!/usr/bin/env python3
"""Bit-exact model of the H200 `tex.grad` level of detail (tex1DGrad / tex2DGrad), fitted to the
sets of scripts/probes/grad_probe.cu:   scripts/probes/fit_grad.py [PROBE_DIR=/work/probe_grad]
Generalises an earlier fit (64x32 only, from mip_cube_probe.cu's grad sets) to any size, 1D, bias, clamps and special values.
Prints, per set, how many results differ bitwise (f32) from the model.

The rule (every value below is exact; float64 is only a carrier, all operations on it are exact
or provably cannot change the result, see notes):
 1. Each gradient component g (f32; for 1D only dPdx.x, dPdy.x, the y components are 0) is
    scaled by the level-0 size S of its axis (W for .x, H for .y), S itself cut to its 10
    leading bits (truncated):
      NaN -> 0;  +-inf -> inf;  0 -> 0;
      else m = the top 10 significant bits of |g| (f32 mantissa field >> 14, plus the hidden
      1: 512..1023; exponent e, value m*2^(e-9)), the sign kept;
      S = 2^eS * Smant (eS = floor(log2 S)); the product m*Smant is formed from partial
      products, one per set bit b of S: (m << 3) >> (eS - b) (each truncated to 3 bits below
      m's last bit), summed, then rounded UP to an integer: vu = ceil(sum / 8);
      then truncated to 10 significant bits (vu in 1024..2047 -> clear bit 0).
      Scaled value = vu * 2^(e - 9 + eS).  (Power-of-two S: exactly t9(g)*S.)
 2. The footprint (as the 64x32 fit found it): with ax, ay, bx, by the scaled dPdx.x, dPdx.y,
    dPdy.x, dPdy.y, v = max of
      max(|ax|,|ay|) + mul(min(|ax|,|ay|), 11/32, +4/32 ulp), same for (bx,by),
      and for s = +1, -1: X = sadd(ax, s*bx), Y = sadd(ay, s*by), M = max, N = min:
      trunc10(mul(M, 11/16, +4/16 ulp)) + mul(N, 121/512, +32/512 ulp)
    (mul(v, num/den, +rc/den): v = m*2^(e-9) -> (num*m + rc)/den * 2^(e-9), exact;
     sadd(p, q): the smaller-magnitude operand truncated toward 0 to 2^(e_big-10), added with
     signs, |.| truncated to 10 significant bits.)
 3. lod256 = 256*E + TAB[j], E = floor(log2 v), j = the 8 bits after v's leading 1.
    v == 0 -> lod -inf; v == inf (inf gradient or f32 overflow of g*S) -> lod +inf.
 4. Level selection as Mips::select: q = lod256 + trunc(bias*256), clamped to
    [min_lod*256, min(max_lod*256, (levels-1)*256)] (-inf -> min, +inf -> max).
"""
import sys
import numpy as np

TAB = np.array([0,2,4,5,6,8,9,11,12,13,15,16,18,19,20,22,23,24,26,27,28,30,31,32,34,35,36,38,39,40,42,43,
 44,45,47,48,49,50,52,53,54,55,57,58,59,60,62,63,64,65,66,68,69,70,71,72,74,75,76,77,78,79,81,82,
 83,84,85,86,88,89,90,91,92,93,94,95,97,98,99,100,101,102,103,104,105,106,107,109,110,111,112,113,114,115,
 116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,135,136,137,137,138,139,140,141,142,143,
 144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,162,163,164,165,166,167,168,169,170,
 171,172,173,173,174,175,176,177,178,179,180,181,181,182,183,184,185,186,187,188,188,189,190,191,192,193,194,195,
 195,196,197,198,199,200,200,201,202,203,204,205,205,206,207,208,209,210,210,211,212,213,214,214,215,216,217,218,
 218,219,220,221,222,222,223,224,225,226,226,227,228,229,229,230,231,232,233,233,234,235,236,236,237,238,239,239,
 240,241,242,242,243,244,245,245,246,247,248,248,249,250,251,251,252,253,253,254,255,255], dtype=np.int64)

# name: (W, H (0 = 1D), levels, bias, min_lod, max_lod), as grad_probe.cu makes them
SETS = {'g_64x32': (64, 32, 7, 0, 0, 6), 'g_256x256': (256, 256, 9, 0, 0, 8),
        'g_1024x16': (1024, 16, 11, 0, 0, 10), 'g_100x60': (100, 60, 7, 0, 0, 6),
        'g_64x32_bias': (64, 32, 7, 0.3, 1.25, 4.5), 'g_64x32_neg': (64, 32, 7, -0.7, 0, 20),
        'g_1d_512': (512, 0, 10, 0, 0, 9), 'g_1d_300': (300, 0, 9, 0.45, 0.5, 7.25)}


def expo(v):
    """floor(log2 v) for v > 0 (exact: frexp)."""
    return np.frexp(v)[1] - 1


def scale(g, S):
    """Step 1: gradient component (f32 array) times the axis size S (int) -> float64 (signed)."""
    b = np.asarray(g, dtype=np.float32).view(np.uint32).astype(np.int64)
    neg = (b >> 31) != 0
    ef = (b >> 23) & 255
    frac = b & 0x7FFFFF
    normal = (ef > 0) & (ef < 255)
    m = np.where(normal, 512 + (frac >> 14), frac >> 14)          # subnormals: unnormalised
    e = np.where(normal, ef - 127, -126)
    eS = S.bit_length() - 1
    S = S >> max(0, eS - 9) << max(0, eS - 9)   # the size at 10 significant bits (4095 -> 4092:
                                                # ptx-samples/texture/grad_adversarial)
    acc = np.zeros_like(m)
    for bit in range(eS + 1):
        if S >> bit & 1:
            acc += (m << 3) >> (eS - bit)                          # partial product, 3 guard bits
    vu = (acc + 7) >> 3                                            # ceil
    vu = np.where(vu >= 1024, vu & ~1, vu)                         # 10 significant bits
    v = np.ldexp(vu.astype(np.float64), e - 9 + eS)
    v = np.where(ef == 255, np.where(frac != 0, 0.0, np.inf), v)  # NaN -> 0, inf -> inf
    v = np.where(np.abs(v) > 3.4028234663852886e38, np.inf, v)    # f32 overflow -> inf
    return np.where(neg, -v, v)


def trunc10(v):
    """v >= 0: keep 10 significant bits (truncate)."""
    with np.errstate(all='ignore'):
        u = np.ldexp(1.0, expo(v) - 9)
        r = np.floor(v / u) * u
    return np.where((v == 0) | ~np.isfinite(v), v, r)


def mul(v, num, den, rc):
    """v = m*2^(e-9) (10-bit value, >= 0) -> (num*m + rc)/den * 2^(e-9); 0 -> 0, inf -> inf."""
    with np.errstate(all='ignore'):
        u = np.ldexp(1.0, expo(v) - 9)
        r = (num * np.round(v / u) + rc) / den * u
    return np.where((v == 0) | ~np.isfinite(v), v * num, r)


def sadd(p, q):
    """|p + q| with the smaller operand truncated toward 0 to 2^(e_big - 10), then trunc10."""
    pb = np.abs(p) >= np.abs(q)
    big, sm = np.where(pb, p, q), np.where(pb, q, p)
    with np.errstate(all='ignore'):
        gu = np.ldexp(1.0, expo(np.abs(big)) - 10)
        smt = np.trunc(sm / gu) * gu
        r = trunc10(np.abs(big + smt))
    r = np.where(np.isinf(big) | np.isinf(sm), np.inf, r)
    return np.where(big == 0, 0.0, r)


def footprint(ax, ay, bx, by):
    """Step 2: the largest of four approximate footprint lengths."""
    terms = []
    for x, y in ((ax, ay), (bx, by)):
        M, N = np.maximum(np.abs(x), np.abs(y)), np.minimum(np.abs(x), np.abs(y))
        terms.append(M + mul(N, 11, 32, 4))
    for s in (1, -1):
        X, Y = sadd(ax, s * bx), sadd(ay, s * by)
        M, N = np.maximum(X, Y), np.minimum(X, Y)
        terms.append(trunc10(mul(M, 11, 16, 4)) + mul(N, 121, 512, 32))
    return np.maximum.reduce(terms)


def lod256(v):
    """Step 3: lod in 1/256 (float64 carrying an integer, or +-inf)."""
    with np.errstate(all='ignore'):
        E = expo(v)
        j = np.clip(np.floor((np.ldexp(v, -E) - 1) * 256), 0, 255).astype(np.int64)
        lod = 256.0 * E + TAB[j]
    return np.where(v == 0, -np.inf, np.where(np.isinf(v), np.inf, lod))


def select(lod, bias, lo, hi, levels):
    """Step 4 (Mips::select, linear between levels): the result = level + fraction/256."""
    b = int(np.trunc(np.float64(np.float32(bias)) * 256))
    mn, mx = int(np.float32(lo) * 256), min(int(np.float32(hi) * 256), (levels - 1) * 256)
    q = np.clip(np.clip(np.where(np.isnan(lod), 0.0, lod), -1e9, 1e9) + b, min(mn, mx), mx)
    return (q / 256).astype(np.float32)


def model(rec, W, H):
    """rec: (n, 6) f32 records x, y, dPdx.x, dPdx.y, dPdy.x, dPdy.y -> lod256."""
    if H == 0:   # 1D: the 2D rule with the y components zero
        z = np.zeros(len(rec))
        v = footprint(scale(rec[:, 2], W), z, scale(rec[:, 4], W), z)
    else:
        v = footprint(scale(rec[:, 2], W), scale(rec[:, 3], H), scale(rec[:, 4], W), scale(rec[:, 5], H))
    return lod256(v)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else '/work/probe_grad'
    total = 0
    for name, (W, H, L, bias, lo, hi) in SETS.items():
        rec = np.fromfile(f'{d}/{name}.in', dtype='<f4').reshape(-1, 6)
        got = np.fromfile(f'{d}/{name}.out', dtype='<f4')
        pred = select(model(rec, W, H), bias, lo, hi, L)
        bad = np.nonzero(pred.view(np.uint32) != got.view(np.uint32))[0]
        total += len(bad)
        print(f'{name:14s} n={len(got):7d} mismatches={len(bad)}')
        for i in bad[:5]:
            print('    ', i, rec[i, 2:].tolist(), 'model', float(pred[i]), 'gpu', float(got[i]))
    print('total mismatches', total)


if __name__ == '__main__':
    main()
