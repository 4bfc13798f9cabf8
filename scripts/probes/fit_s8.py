#!/usr/bin/env python3
"""Fit of the H100/H200 linear filter for s8 texels read as normalized floats.

Rule (measured, 0 mismatches on s8 / u8 / s8_2d):
  P  = sum(v_i * w_i)            raw signed 8-bit texel values (-128..127), integer weights
                                 summing to 256 (1D: 256-k, k; 2D: weights_2d). Exact int.
  q  = (258*P + 32*(P >> 12) + 128) >> 8     arithmetic (floor) shifts on signed P
  r  = max(f32(q) / 32767.0f, -1.0f)         f32 division, clamp at -1
i.e. the blend happens on the raw 8-bit values (units of 1/(127*256)), and the 16-bit
conversion ~ P*32767/32512 is approximated as 258*P/256 + (P>>12)/8, rounded half up.
u8 control: floor((a*257*(256-k) + b*257*k + 128)/256)/65535 (known).
Usage: python fit_s8.py /work/probe_tl
"""
import sys
import numpy as np

d = sys.argv[1] if len(sys.argv) > 1 else '/work/probe_tl'
d = d.rstrip('/') + '/'
N = 65536  # pairs; texture has 2N texels

# texel contents (tex_linear_probe.cu, narrow()): s[2p] = p & 255, s[2p+1] = p >> 8, as int8
p = np.arange(N, dtype=np.int64)
raw = np.zeros(2 * N, np.int64)
raw[0::2] = p & 255
raw[1::2] = p >> 8
s8 = ((raw ^ 128) - 128)  # signed view
u8 = raw                   # unsigned view


def lerp_pos(c):
    """i = floor(c - 0.5), k = floor(frac*256 + 0.5) in 0..256 (coords exact in f64)."""
    b = c.astype(np.float64) - 0.5
    f = np.floor(b)
    k = np.minimum(np.floor((b - f) * 256.0 + 0.5), 256).astype(np.int64)
    return f.astype(np.int64), k


def s8_resolve(P):
    """Signed weighted sum of raw s8 values (x 256) -> f32 result."""
    P = np.asarray(P, np.int64)
    q = (258 * P + 32 * (P >> 12) + 128) >> 8
    return np.maximum(q.astype(np.float32) / np.float32(32767.0), np.float32(-1.0))


def report(name, model, out):
    bad = model.view(np.uint32) != out.view(np.uint32)
    print(f'{name}: {int(bad.sum())} mismatches of {bad.size}')
    return bad


def set_1d(name, tex, resolve):
    x = np.fromfile(d + name + '.in', np.float32)
    y = np.fromfile(d + name + '.out', np.float32)
    i, k = lerp_pos(x)
    n = tex.size
    i0 = np.clip(i, 0, n - 1)          # clamp address mode
    i1 = np.clip(i + 1, 0, n - 1)
    S = tex[i0] * (256 - k) + tex[i1] * k
    return report(name, resolve(S), y)


def u8_resolve(S):
    q = (S * 257 + 128) // 256
    return q.astype(np.float32) / np.float32(65535.0)


set_1d('s8', s8, s8_resolve)
set_1d('u8', u8, u8_resolve)

# 2D: 256 x 256 of the first 65536 s8 texels, row-major (x fastest), clamp.
x = np.fromfile(d + 's8_2d.in', np.float32).reshape(-1, 2)
y = np.fromfile(d + 's8_2d.out', np.float32)
ix, kx = lerp_pos(x[:, 0])
iy, ky = lerp_pos(x[:, 1])
t2 = s8[:65536].reshape(256, 256)
x0 = np.clip(ix, 0, 255); x1 = np.clip(ix + 1, 0, 255)
y0 = np.clip(iy, 0, 255); y1 = np.clip(iy + 1, 0, 255)
w11 = (kx * ky + 128) >> 8
w10 = kx - w11
w01 = ky - w11
w00 = 256 - kx - ky + w11
S = t2[y0, x0] * w00 + t2[y0, x1] * w10 + t2[y1, x0] * w01 + t2[y1, x1] * w11
report('s8_2d', s8_resolve(S), y)
