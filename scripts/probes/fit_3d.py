#!/usr/bin/env python3
"""Bit-exact model of H200 tex3D linear filtering (trilinear within one level), clamp mode,
checked against the sets tex_linear_probe.cu writes (l3_onehot_a, l3_onehot_b, l3_rnd, l3_u8):
    /work/pyenv/bin/python scripts/probes/fit_3d.py PROBE_OUT

Rule (found): the 3D texture is filtered exactly as mip trilinear (src/mem/trilinear.rs) with
the z plane playing the level's role: plane k (z = k0) has weight L0 = 256 - c, plane k0+1 has
L1 = c, and each plane's four weights are trilinear::weights(a, b, L).  The f32 blend is
trilinear::level_sum per plane + trilinear::blend_f32; the u8 normalized blend sums all 8."""
import sys
import numpy as np

D = (sys.argv[1] if len(sys.argv) > 1 else '/work/probe_tl') + '/'


def rnd(n):      # n / 256 rounded half up
    return (n + 128) >> 8


def rnd_hd(n):   # n / 256 rounded half down
    return (n + 127) >> 8


def position(x, size):
    """clamp mode: texel coordinate clamped to the first/last texel centres, 8-bit fraction,
    a fraction rounding up to a whole texel carries into the index."""
    x = np.clip(x, 0.5, size - 0.5) - 0.5
    u = np.floor(x * 256 + 0.5).astype(np.int64)
    return u >> 8, u & 255


def plane_weights(a, b, L):
    """texels (i,j), (i+1,j), (i,j+1), (i+1,j+1) of one z plane of weight L; sum = L."""
    ax = rnd(a * L)
    w11 = rnd(b * ax)
    w01 = rnd_hd(b * (L - ax))
    return [L - ax - w01, ax - w11, w01, w11]


# corner order: (dx, dy, dz) with dx fastest
CORNERS = [(dx, dy, dz) for dz in (0, 1) for dy in (0, 1) for dx in (0, 1)]


def footprint(coords, size):
    """coords: (N,3) float64 texel coordinates. Returns weights (8,N) and index triples."""
    (i, a), (j, b), (k, c) = [position(coords[:, q], size) for q in range(3)]
    W = np.array(plane_weights(a, b, 256 - c) + plane_weights(a, b, c))
    idx = [(np.minimum(k + dz, size - 1), np.minimum(j + dy, size - 1), np.minimum(i + dx, size - 1))
           for dx, dy, dz in CORNERS]
    return W, idx


# ---------------- f32 blend (mip-trilinear rule, z planes as levels) ----------------
def frexp_exp(t):
    return ((t.view(np.uint32) >> 23) & 0xff).astype(np.int64) - 126


def scaled_trunc(t, s):
    """trunc(t * 2^s) for normal/zero f32 t, s int64 arrays (exact)."""
    bits = t.view(np.uint32).astype(np.int64)
    mant = (bits & 0x7fffff) | 0x800000
    ex = ((bits >> 23) & 0xff) - 150 + s
    up = np.left_shift(mant, np.clip(ex, 0, 40))
    dn = np.right_shift(mant, np.clip(-ex, 0, 63))
    mag = np.where(ex >= 0, up, np.where(ex > -40, dn, 0))
    mag = np.where(t == 0, 0, mag)
    return np.where(t < 0, -mag, mag)


def level_sum(W, T):
    """W (4,N) int64, T (4,N) float32. Returns (S, e, present)."""
    T = np.where(np.abs(T) < np.float32(2.0 ** -126), np.float32(0) * T, T)   # flush subnormals
    live = (W > 0) & (T != 0)
    e = np.where(live, frexp_exp(T), -10 ** 6).max(0)
    present = live.any(0)
    e = np.where(present, e, 0)
    S = (np.where(W > 0, scaled_trunc(T, 28 - e[None, :]), 0) * W).sum(0)
    return S, e, present


def round_to_f32(acc, p):
    """acc * 2^p to f32: nearest, ties away from zero; subnormal results flushed."""
    neg = acc < 0
    A = np.abs(acc).astype(np.int64)
    bl = np.frexp(A.astype(np.float64))[1].astype(np.int64)
    bl = np.where((bl > 0) & ((A >> np.clip(bl - 1, 0, 63)) == 0), bl - 1, bl)
    bl = np.where((A >> np.clip(bl, 0, 63)) != 0, bl + 1, bl)
    drop = np.maximum(bl - 24, 0)
    half = np.where(drop > 0, np.left_shift(1, np.maximum(drop - 1, 0)), 0)
    rest = A & (np.left_shift(1, drop) - 1)
    m = A >> drop
    m = m + ((drop > 0) & (rest >= half))
    v = np.ldexp(m.astype(np.float64), (p + drop).astype(np.int64)).astype(np.float32)
    v = np.where(np.abs(v) < np.float32(2.0 ** -126), np.float32(0), v)
    return np.where(neg, -v, v).astype(np.float32)


def blend_f32(W, T):
    """W (8,N) weights, T (8,N) f32 texels (corner order CORNERS)."""
    S0, e0, p0 = level_sum(W[:4], T[:4])
    S1, e1, p1 = level_sum(W[4:], T[4:])
    top = np.maximum(np.where(p0, e0, -10 ** 6), np.where(p1, e1, -10 ** 6))
    m = top - np.mod(top - 2, 4)      # largest exponent rounded down to 2 mod 4

    def on_grid(S, e, p):             # floor to multiples of 2^(m-36)
        sh = e - m
        r = np.where(sh >= 0, np.left_shift(S, np.clip(sh, 0, 62)), np.right_shift(S, np.clip(-sh, 0, 62)))
        return np.where(p, r, 0)
    r = on_grid(S0, e0, p0) + on_grid(S1, e1, p1)
    out = round_to_f32(r, m - 36)
    return np.where(p0 | p1, out, np.float32(0)).astype(np.float32)


def mism(pred, got):
    return int((pred.view(np.uint32) != got.view(np.uint32)).sum())


def f32_set(name, texels):
    """texels (8,8,8,4) f32 array indexed [z,y,x,ch]."""
    c = np.fromfile(D + name + '.in', np.float32).reshape(-1, 4).astype(np.float64)
    G = np.fromfile(D + name + '.out', np.float32).reshape(-1, 4)
    W, idx = footprint(c, 8)
    pred = np.empty_like(G)
    for ch in range(4):
        T = np.array([texels[z, y, x, ch] for z, y, x in idx])
        pred[:, ch] = blend_f32(W, T)
    bad = mism(pred, G)
    print(f'{name}: {bad} mismatching of {G.size} values')
    if bad:
        q = np.nonzero((pred.view(np.uint32) != G.view(np.uint32)).any(1))[0][:5]
        for s in q:
            print('   sample', s, c[s, :3], 'got', G[s], 'pred', pred[s])
    return W


n = 8
A = np.zeros((n, n, n, 4), np.float32); B = np.zeros((n, n, n, 4), np.float32)
for z in range(n):
    for y in range(n):
        for x in range(n):
            ch = (x & 1) + 2 * (y & 1)
            (B if z & 1 else A)[z, y, x, ch] = 1
f32_set('l3_onehot_a', A)
f32_set('l3_onehot_b', B)
f32_set('l3_rnd', np.fromfile(D + 'l3_rnd.texels', np.float32).reshape(n, n, n, 4))

# ---------------- u8 read as normalized float, normalized coordinates ----------------
m = 32
U = np.fromfile(D + 'l3_u8.texels', np.uint8).reshape(m, m, m).astype(np.int64)
c = np.fromfile(D + 'l3_u8.in', np.float32).reshape(-1, 4).astype(np.float64) * m
G = np.fromfile(D + 'l3_u8.out', np.float32)
W, idx = footprint(c, m)
S = sum(W[q] * U[z, y, x] * 257 for q, (z, y, x) in enumerate(idx))
pred = ((S + 128) >> 8).astype(np.float32) / np.float32(65535)
bad = mism(pred, G)
print(f'l3_u8: {bad} mismatching of {G.size} values')
if bad:
    q = np.nonzero(pred.view(np.uint32) != G.view(np.uint32))[0][:5]
    for s in q:
        print('   sample', s, c[s, :3] / m, 'got', G[s], 'pred', pred[s])
