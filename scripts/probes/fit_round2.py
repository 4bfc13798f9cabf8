#!/usr/bin/env python3
"""Round-two fits of the H200 texture unit (tex_linear_probe.cu: border2() and narrow2()).

Usage:
    /work/pyenv/bin/python scripts/probes/fit_round2.py /work/probe_tl2 [/work/probe_tl]
(given /work/probe_tl, the round-two data are looked for in /work/probe_tl2). Prints, per set,
the number of results (f32, bitwise) that differ from the model. With the round-one directory
available it also re-checks b2_u8 (round one) with the border-colour conversion fitted here.

Models:
1) 1D texture, linear: filtered as a 2D texture of one row sampled at y = 0 (row weight l = 128
   between row -1 and row 0), where x follows addressMode[0] and the row axis follows
   addressMode[1]: with addressMode[1] = border, row -1 is the border colour (weight 128 of it
   everywhere); with addressMode[1] = clamp, row -1 is row 0 (no border weight from y).
2) Border colour as a texel of a normalized-read format (N = 255, 65535, 32767; B = 8, 16, 15
   magnitude bits; n = B + 4 = 12, 20, 19):
       a = min(|c|, 1)  (unsigned: a negative colour (or -0) gives 0; signed: sign kept apart)
       F = floor(a * 2^n)                     (the colour truncated to n fraction bits)
       q = (F * N + 2^(n-1) - 1) >> n         (F*N/2^n to nearest, ties DOWN)
       s16: the texel is -q for a negative colour (symmetric; -0 gives +0).
   Linear: q is blended like a texel (u8 widened q*257); fully in the border the result is
   q*257/65535 (u8), q/65535 (u16), max(q/32767, -1) (s16), f32 division.
   Point: returns the same quantized texel read as normalized float (not the raw colour).
3) half blend: the fit_half.py model unchanged (it covers the new cases).
4) 3D f32 linear on zeros: -0 iff every texel of the footprint is -0, the footprint being the
   texels whose three axis weights (256-a or a, 256-b or b, 256-c or c, after the clamp-mode
   coordinate clamp) are all nonzero, even where the combined 3D weight rounds to 0.
"""
import math
import os
import struct
import sys

import numpy as np

from fit_border import f32bits, scaled_trunc, weights_2d  # the same rules, fitted in round one
from fit_half import bitlen, half_int, round_f16_away

ARG = (sys.argv[1] if len(sys.argv) > 1 else "/work/probe_tl2").rstrip("/")
D2 = ARG if os.path.exists(ARG + "/h3.in") else ARG + "2"
D1 = sys.argv[2].rstrip("/") if len(sys.argv) > 2 else (
    ARG if os.path.exists(ARG + "/b2_u8.in") else "/work/probe_tl")


def report(name, bad, total, examples):
    print(f"{name:18s} {bad:7d} / {total}")
    for e in examples[:8]:
        print("    ", e)
    return bad


# ---------------------------------------------------------------------------------------------
# f32 blend (docs/launch/textures.md)
def lerp_pos(c):
    b = float(np.float64(c)) - 0.5
    f = math.floor(b)
    k = min(int(math.floor((b - f) * 256.0 + 0.5)), 256)
    return int(f), k


def round_to_f32(acc, p):
    if acc == 0:
        return 0
    neg = acc < 0
    m = -acc if neg else acc
    n = m.bit_length()
    if n > 24:
        drop = n - 24
        rest = m & ((1 << drop) - 1)
        m >>= drop
        if rest >= (1 << (drop - 1)):
            m += 1
        p += drop
        if m == 1 << 24:
            m >>= 1
            p += 1
    b = f32bits(float(np.float32(m * 2.0 ** p)))
    if (b & 0x7F800000) == 0:
        b = 0
    return b | (0x80000000 if neg else 0)


def blend_f32(vals, ws):
    terms = []
    for t, w in zip(vals, ws):
        if w > 0:
            if (t & 0x7F800000) == 0:
                t &= 0x80000000
            terms.append((t, w))
    if all(t & 0x7FFFFFFF == 0 for t, _ in terms):
        return 0x80000000 if all(t >> 31 for t, _ in terms) else 0
    e = max(((t >> 23) & 0xFF) - 126 for t, _ in terms if t & 0x7FFFFFFF)
    acc = sum(scaled_trunc(t, 28 - e) * w for t, w in terms)
    return round_to_f32(acc, e - 36)


# ---------------------------------------------------------------------------------------------
# 1) 1D border textures with another mode on the row axis
def q1():
    w = 16
    one = f32bits(1.0)
    tex = [(one if i % 2 == 0 else 0, one if i % 2 == 1 else 0, one, 0) for i in range(w)]
    bc = [0, 0, 0, one]
    total = 0
    for name, mx, my in [("b1_border_clamp", "border", "clamp"), ("b1_clamp_border", "clamp", "border")]:
        xs = np.fromfile(f"{D2}/{name}.in", "<f4")
        out = np.fromfile(f"{D2}/{name}.out", "<u4").reshape(-1, 4)
        bad, ex = 0, []

        def texel(x, y, ch):
            if mx == "clamp":
                x = min(max(x, 0), w - 1)
            if my == "clamp":
                y = min(max(y, 0), 0)
            if 0 <= x < w and y == 0:
                return tex[x][ch]
            return bc[ch]

        for n, cx in enumerate(xs):
            i, k = lerp_pos(cx)
            j, l = lerp_pos(0.0)  # (-1, 128)
            ws = weights_2d(k, l)
            pos = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)]
            got = [blend_f32([texel(x, y, ch) for x, y in pos], ws) for ch in range(4)]
            if got != [int(v) for v in out[n]]:
                bad += 1
                ex.append((float(cx), [hex(v) for v in out[n]], [hex(v) for v in got]))
        total += report(name, bad, len(xs), ex)
        # The alternative (the row axis in the mode of axis 0) for contrast:
        alt = 0
        for n, cx in enumerate(xs):
            i, k = lerp_pos(cx)
            ws = weights_2d(k, 128)
            pos = [(i, -1), (i + 1, -1), (i, 0), (i + 1, 0)]

            def texel_alt(x, y, ch):
                if mx == "clamp":
                    x = min(max(x, 0), w - 1)
                    y = 0
                if 0 <= x < w and y == 0:
                    return tex[x][ch]
                return bc[ch]
            got = [blend_f32([texel_alt(x, y, ch) for x, y in pos], ws) for ch in range(4)]
            alt += got != [int(v) for v in out[n]]
        print(f"    (row axis following addressMode[0] instead: {alt} mismatches)")
    return total


# ---------------------------------------------------------------------------------------------
# 2) border colours as u8 / u16 / s16 texels
FMT = {"u8": (255, 12, False), "u16": (65535, 20, False), "s16": (32767, 19, True)}


def border_q(cbits, fmt):
    """The border colour (f32 bits) as the format's integer texel."""
    N, n, signed = FMT[fmt]
    c = struct.unpack("<f", struct.pack("<I", cbits))[0]
    if math.isnan(c):
        raise ValueError("NaN colour not measured")
    neg = c < 0
    if neg and not signed:
        return 0
    a = min(abs(c), 1.0)
    Fx = math.floor(a * (1 << n))          # exact: a is an f32, scaling by 2^n is exact in f64
    q = (Fx * N + (1 << (n - 1)) - 1) >> n
    return -q if neg else q


def normalized_f32(q, fmt):
    """A (widened) texel value read as normalized float after a full-weight blend / point."""
    if fmt == "u8":
        v = np.float32(q * 257) / np.float32(65535.0)
    elif fmt == "u16":
        v = np.float32(q) / np.float32(65535.0)
    else:
        v = max(np.float32(q) / np.float32(32767.0), np.float32(-1.0))
    return f32bits(float(v))


def q2():
    cols = np.fromfile(f"{D2}/bc_colours.in", "<u4")
    out = np.fromfile(f"{D2}/bc_colours.out", "<u4").reshape(-1, 6, 4)
    total = 0
    for kind, (fmt, mode) in enumerate([("u8", "linear"), ("u16", "linear"), ("s16", "linear"),
                                        ("u8", "point"), ("u16", "point"), ("s16", "point")]):
        bad, ex = 0, []
        for g in range(out.shape[0]):
            for ch in range(4):
                cb = int(cols[4 * g + ch])
                q = border_q(cb, fmt)
                if mode == "linear":
                    # blended as a texel: all four bilinear texels are the border, weights sum 256
                    wide = q * 257 if fmt == "u8" else q
                    q16 = (wide * 256 + 128) // 256
                    got = normalized_f32(q16 // 257 if fmt == "u8" else q16, fmt)
                else:
                    got = normalized_f32(q, fmt)
                if got != int(out[g, kind, ch]):
                    bad += 1
                    c = struct.unpack("<f", struct.pack("<I", cb))[0]
                    ex.append((repr(c), hex(int(out[g, kind, ch])), hex(got)))
        total += report(f"bc_colours {fmt} {mode}", bad, out.shape[0] * 4, ex)
    # the naive alternatives, for the record
    for name, rule in [("round(c*N) half up", lambda a, N: math.floor(a * N + 0.5)),
                       ("round(c*N) half down", lambda a, N: math.ceil(a * N - 0.5))]:
        cnt = 0
        for kind, fmt in enumerate(["u8", "u16", "s16"]):
            N, n, signed = FMT[fmt]
            for g in range(out.shape[0]):
                for ch in range(4):
                    c = struct.unpack("<f", struct.pack("<I", int(cols[4 * g + ch])))[0]
                    a = min(abs(c), 1.0) if (signed or c > 0) else 0.0
                    q = rule(a, N) * (-1 if (signed and c < 0) else 1)
                    cnt += normalized_f32(q, fmt) != int(out[g, kind + 3, ch])
        print(f"    (exact {name}: {cnt} point mismatches of {out.shape[0] * 12})")
    return total


def q2_round1():
    """b2_u8 (round one, border colour 0.25, -0.5, 0.75, 3.0) with the fitted conversion."""
    if not os.path.exists(f"{D1}/b2_u8.in"):
        return 0
    w = 16
    u8 = np.fromfile(f"{D1}/b2_u8.texels", "u1").reshape(-1, 4).astype(int)
    bcr = [f32bits(v) for v in [0.25, -0.5, 0.75, 3.0]]
    bq = [border_q(b, "u8") * 257 for b in bcr]
    c2 = np.fromfile(f"{D1}/b2_u8.in", "<f4").reshape(-1, 2)
    out = np.fromfile(f"{D1}/b2_u8.out", "<u4").reshape(-1, 4)
    bad, ex = 0, []
    for n in range(len(c2)):
        i, k = lerp_pos(c2[n, 0])
        j, l = lerp_pos(c2[n, 1])
        ws = weights_2d(k, l)
        got = []
        for ch in range(4):
            acc = 0
            for (x, y), wt in zip([(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)], ws):
                v = u8[y * w + x][ch] * 257 if (0 <= x < w and 0 <= y < w) else bq[ch]
                acc += v * wt
            got.append(f32bits(float(np.float32((acc + 128) // 256) / np.float32(65535.0))))
        if got != [int(v) for v in out[n]]:
            bad += 1
            ex.append((c2[n].tolist(), [hex(int(v)) for v in out[n]], [hex(v) for v in got]))
    return report("b2_u8 (round 1)", bad, len(c2), ex)


# ---------------------------------------------------------------------------------------------
# 3) half pairs (fit_half.py model)
def blend_half(texels, weights, foot):
    parts = [half_int(t) for t in texels]
    n = len(texels[0])
    B = np.zeros(n, dtype=np.int64)
    for (mag, neg, sp, nan), w in zip(parts, weights):
        B = np.maximum(B, np.where(w > 0, bitlen(mag), 0))
    sh = np.maximum(B - 15, 0)
    S = np.zeros(n, dtype=np.int64)
    allzero_neg = np.ones(n, dtype=bool)
    for (mag, neg, sp, nan), w in zip(parts, weights):
        tq = (mag >> sh) << sh
        S += np.where(neg, -tq, tq) * w
        allzero_neg &= (w == 0) | ((mag == 0) & neg)
    h = round_f16_away(S, -32)
    h = np.where((S == 0) & allzero_neg, 0x8000, h).astype(np.uint16)
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
    return h.view(np.float16).astype(np.float32), S


def q3():
    tx = np.fromfile(f"{D2}/h3.texels", "<u2")
    x = np.fromfile(f"{D2}/h3.in", "<f4")
    out = np.fromfile(f"{D2}/h3.out", "<f4")
    b = x.astype(np.float64) - 0.5
    i = np.floor(b).astype(np.int64)
    k = np.minimum(np.floor((b - i) * 256 + 0.5), 256).astype(np.int64)
    n = len(tx)
    i0, i1 = np.clip(i, 0, n - 1), np.clip(i + 1, 0, n - 1)
    t0, t1 = tx[i0], tx[i1]
    got, S = blend_half([t0, t1], [256 - k, k], [256 - k > 0, k > 0])
    gb, wb = got.view(np.uint32), out.view(np.uint32)
    bad = np.nonzero(gb != wb)[0]
    ex = [("t0=%04x t1=%04x k=%d" % (t0[q], t1[q], k[q]), "%08x" % wb[q], "%08x" % gb[q]) for q in bad]
    r = report("h3", len(bad), len(wb), ex)
    # coverage of the cases the brief asked about
    fin = ((t0 & 0x7C00) != 0x7C00) & ((t1 & 0x7C00) != 0x7C00)
    w0, w1 = k < 256, k > 0
    nz = ((w0 & ((t0 & 0x7FFF) != 0)) | (w1 & ((t1 & 0x7FFF) != 0)))
    cancel = fin & (S == 0) & nz
    print("     cases: exact cancellation S == 0 from nonzero texels: %d (all +0: %s)"
          % (cancel.sum(), bool((wb[cancel] == 0).all())))
    sub = fin & ((t0 & 0x7C00) == 0) & ((t1 & 0x7C00) == 0) & (((t0 ^ t1) & 0x8000) != 0) & (S != 0)
    print("     mixed-sign subnormal/zero pairs, S != 0: %d; results zero: %d (sign of S kept: %s)"
          % (sub.sum(), ((wb[sub] & 0x7FFFFFFF) == 0).sum(),
             bool((((wb[sub] >> 31) == 1) == (S[sub] < 0)).all())))
    opp = ((t0 & 0x7FFF) == 0x7C00) & ((t1 & 0x7FFF) == 0x7C00) & (t0 != t1)
    print("     opposite infinities: %d samples, results %s" % (opp.sum(), sorted({"%08x" % v for v in wb[opp]})))
    return r


# ---------------------------------------------------------------------------------------------
# 4) 3D zeros
def q4():
    t = np.fromfile(f"{D2}/z3.texels", "<u4").reshape(4, 4, 4)  # [z][y][x]
    c = np.fromfile(f"{D2}/z3.in", "<f4").reshape(-1, 4)
    out = np.fromfile(f"{D2}/z3.out", "<u4")

    def position(v, n=4):  # trilinear.rs position(): clamp-mode coordinate clamp, then 1/256
        v = min(max(float(v), 0.5), n - 0.5) - 0.5
        u = int(math.floor(v * 256 + 0.5))
        return u >> 8, u & 255

    def rnd(v):
        return (v + 128) >> 8

    def weights(a, b, L):  # trilinear.rs weights()
        ax = rnd(a * L)
        w11 = rnd(b * ax)
        w01 = (b * (L - ax) + 127) >> 8
        return [L - ax - w01, ax - w11, w01, w11]

    bad, alt, ex = 0, 0, []
    for s in range(len(c)):
        (X, a), (Y, b), (Z, l) = position(c[s, 0]), position(c[s, 1]), position(c[s, 2])
        foot_neg, weighted_neg = True, True
        for dz, L in [(0, 256 - l), (1, l)]:
            ws = weights(a, b, L)
            for j, (dx, dy) in enumerate([(0, 0), (1, 0), (0, 1), (1, 1)]):
                v = t[min(Z + dz, 3), min(Y + dy, 3), min(X + dx, 3)]
                axis = [(256 - a, a)[dx], (256 - b, b)[dy], L]
                if min(axis) > 0:
                    foot_neg &= bool(v >> 31)
                if ws[j] > 0:
                    weighted_neg &= bool(v >> 31)
        got = 0x80000000 if foot_neg else 0
        alt += (0x80000000 if weighted_neg else 0) != int(out[s])
        if got != int(out[s]):
            bad += 1
            ex.append((c[s, :3].tolist(), hex(int(out[s])), hex(got)))
    r = report("z3", bad, len(c), ex)
    print(f"     (sign from the texels of nonzero 3D weight instead: {alt} mismatches)")
    return r


def main():
    total = q1() + q2() + q2_round1() + q3() + q4()
    print("total mismatches:", total)


if __name__ == "__main__":
    main()
