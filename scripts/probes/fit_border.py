#!/usr/bin/env python3
"""Fit of linear filtering in border address mode (cudaAddressModeBorder) on the H200.

Data: tex_linear_probe.cu, function border(). Usage:
    /work/pyenv/bin/python scripts/probes/fit_border.py /work/probe_tl
Prints, per set, the number of results (f32, bitwise) that differ from the model.
"""
import struct
import sys

import numpy as np

D = sys.argv[1] if len(sys.argv) > 1 else "/work/probe_tl"
BC1 = [0.0, 0.0, 0.0, 1.0]
BCR = [0.25, -0.5, 0.75, 3.0]


def f32bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def lerp_pos(c):
    """(i, k): texels i and i+1, weight k (of 256) of i+1."""
    b = float(np.float64(c)) - 0.5
    f = np.floor(b)
    k = min(int(np.floor((b - f) * 256.0 + 0.5)), 256)
    return int(f), k


def weights_2d(k, l):
    w11 = (k * l + 128) >> 8
    return [256 + w11 - k - l, k - w11, l - w11, w11]


# ---- f32 blend (docs/launch/textures.md) -------------------------------------------------
def frexp_exp(bits):
    return ((bits >> 23) & 0xFF) - 126


def scaled_trunc(bits, s):
    if bits & 0x7FFFFFFF == 0:
        return 0
    mant = (bits & 0x7FFFFF) | 0x800000
    e = ((bits >> 23) & 0xFF) - 150 + s
    mag = mant << e if e >= 0 else mant >> -e
    return -mag if bits >> 31 else mag


def round_to_f32(acc, p):
    """acc * 2^p to f32 bits: nearest, ties away; subnormal flushed."""
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
    v = np.float32(m * 2.0 ** p)
    b = f32bits(float(v))
    if (b & 0x7F800000) == 0:
        b = 0
    return b | (0x80000000 if neg else 0)


def blend_f32(vals, ws):
    """vals: f32 bit patterns, ws: integer weights summing to 256."""
    terms = []
    for t, w in zip(vals, ws):
        if w > 0:
            if (t & 0x7F800000) == 0:
                t &= 0x80000000  # flush subnormal, keep sign
            terms.append((t, w))
    if all(t & 0x7FFFFFFF == 0 for t, _ in terms):
        return 0x80000000 if all(t >> 31 for t, _ in terms) else 0
    e = max(frexp_exp(t) for t, _ in terms if t & 0x7FFFFFFF)
    acc = sum(scaled_trunc(t, 28 - e) * w for t, w in terms)
    return round_to_f32(acc, e - 36)


# ---- u8 read as normalized float ------------------------------------------------------------
def border16(x):
    """The border colour channel as the filter's 16-bit value: clamped to [0, 1], quantized to
    the texel format first (u8: round(x * 255), ties not exercised by the data), then widened
    like a texel (v * 257)."""
    x = min(max(x, 0.0), 1.0)
    return int(np.floor(x * 255 + 0.5)) * 257


def blend_u8(vals16, ws):
    acc = sum(v * w for v, w in zip(vals16, ws))
    q = (acc + 128) // 256
    return f32bits(float(np.float32(np.float32(q) / np.float32(65535.0))))


# ---- texture models -------------------------------------------------------------------------
class Tex:
    def __init__(self, w, h, texels, border, u8=False):
        self.w, self.h, self.t, self.border, self.u8 = w, h, texels, border, u8

    def texel(self, x, y, ch):
        if 0 <= x < self.w and 0 <= y < self.h:
            return self.t[y * self.w + x][ch]
        return None

    def sample(self, cx, cy):
        i, k = lerp_pos(cx)
        j, l = lerp_pos(cy)
        ws = weights_2d(k, l)
        pos = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)]
        out = []
        for ch in range(4):
            if self.u8:
                vals = [self.texel(x, y, ch) for x, y in pos]
                vals = [border16(self.border[ch]) if v is None else v * 257 for v in vals]
                out.append(blend_u8(vals, ws))
            else:
                vals = [self.texel(x, y, ch) for x, y in pos]
                vals = [f32bits(self.border[ch]) if v is None else v for v in vals]
                out.append(blend_f32(vals, ws))
        return out


def f32_texels(arr):
    return [tuple(int(v) for v in row) for row in arr.view("<u4").reshape(-1, 4)]


def run(name, tex, coords, dims, scale=1.0):
    out = np.fromfile(f"{D}/{name}.out", "<u4").reshape(-1, 4)
    bad = 0
    examples = []
    for n in range(len(out)):
        if dims == 1:
            # A 1D texture filters as a 2D texture of height 1 sampled at y = 0 (row -1 is the border).
            cx, cy = float(coords[n]) * scale, 0.0
        else:
            cx, cy = float(coords[n][0]), float(coords[n][1])
        got = tex.sample(cx, cy)
        if list(got) != [int(v) for v in out[n]]:
            bad += 1
            if len(examples) < 5:
                examples.append((coords[n], [hex(v) for v in out[n]], [hex(v) for v in got]))
    print(f"{name:16s} {bad:7d} / {len(out)}")
    for e in examples:
        print("   ", e)
    return bad


def main():
    w = 16
    t1 = [(f32bits(float(i % 2 == 0)), f32bits(float(i % 2 == 1)), f32bits(1.0), 0) for i in range(w)]
    r1 = f32_texels(np.fromfile(f"{D}/b1_rnd.texels", "<f4"))
    c1 = np.fromfile(f"{D}/b1_onehot.in", "<f4")
    c1n = np.fromfile(f"{D}/b1_onehot_norm.in", "<f4")
    sets = [
        ("b1_onehot", Tex(w, 1, t1, BC1), c1, 1, 1.0),
        ("b1_onehot_norm", Tex(w, 1, t1, BC1), c1n.astype(np.float64) * w, 1, 1.0),
        ("b1_rnd", Tex(w, 1, r1, BCR), np.fromfile(f"{D}/b1_rnd.in", "<f4"), 1, 1.0),
    ]
    a, bb = [], []
    for y in range(w):
        for x in range(w):
            v = [0, 0, 0, 0]
            v[(x & 1) + 2 * (y & 1)] = f32bits(1.0)
            a.append(tuple(v))
            bb.append((0, 0, f32bits(1.0), 0))
    r2 = f32_texels(np.fromfile(f"{D}/b2_rnd.texels", "<f4"))
    u8 = [tuple(int(v) for v in row) for row in np.fromfile(f"{D}/b2_u8.texels", "u1").reshape(-1, 4)]
    c2 = lambda n: np.fromfile(f"{D}/{n}.in", "<f4").reshape(-1, 2)
    sets += [
        ("b2_onehot_a", Tex(w, w, a, [0.0] * 4), c2("b2_onehot_a"), 2, 1.0),
        ("b2_onehot_b", Tex(w, w, bb, BC1), c2("b2_onehot_b"), 2, 1.0),
        ("b2_rnd", Tex(w, w, r2, BCR), c2("b2_rnd"), 2, 1.0),
        ("b2_u8", Tex(w, w, u8, BCR, u8=True), c2("b2_u8"), 2, 1.0),
    ]
    only = sys.argv[2:] 
    total = 0
    for name, tex, coords, dims, scale in sets:
        if only and name not in only:
            continue
        total += run(name, tex, coords, dims, scale)
    print("total mismatches:", total)


if __name__ == "__main__":
    main()
