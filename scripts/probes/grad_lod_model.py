#!/usr/bin/env python3
"""Bit-exact model of H200 tex.grad.2d LOD, fitted to the grad_* sets of mip_cube_probe.cu (not yet
in ptxrun, which refuses `.grad`):  scripts/probes/grad_lod_model.py PROBE_OUT [N]
Measured for a 64x32 texture, bias 0, clamps [0, 6], default anisotropy, gradients 2^-10..2^2.
Integer formulation. Values are (E, m) pairs meaning m * 2^(E-9), m in [512,1023] (9-bit truncated float),
or exact rationals handled in int64 with a common fixed point."""
import numpy as np
TAB = np.array([0,2,4,5,6,8,9,11,12,13,15,16,18,19,20,22,23,24,26,27,28,30,31,32,34,35,36,38,39,40,42,43,
 44,45,47,48,49,50,52,53,54,55,57,58,59,60,62,63,64,65,66,68,69,70,71,72,74,75,76,77,78,79,81,82,
 83,84,85,86,88,89,90,91,92,93,94,95,97,98,99,100,101,102,103,104,105,106,107,109,110,111,112,113,114,115,
 116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,135,136,137,137,138,139,140,141,142,143,
 144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,162,163,164,165,166,167,168,169,170,
 171,172,173,173,174,175,176,177,178,179,180,181,181,182,183,184,185,186,187,188,188,189,190,191,192,193,194,195,
 195,196,197,198,199,200,200,201,202,203,204,205,205,206,207,208,209,210,210,211,212,213,214,214,215,216,217,218,
 218,219,220,221,222,222,223,224,225,226,226,227,228,229,229,230,231,232,233,233,234,235,236,236,237,238,239,239,
 240,241,242,242,243,244,245,245,246,247,248,248,249,250,251,251,252,253,253,254,255,255],dtype=np.int64)
FB = 60   # fixed point: value = X * 2^(-FB) relative to 2^0 ... use python ints for exactness
from fractions import Fraction
def t9(x):
    """x: python float (float32 value, already scaled by texture size). returns Fraction truncated to 9 mantissa bits (toward 0)."""
    if x == 0: return Fraction(0)
    b = np.float32(abs(x)).view(np.uint32) & np.uint32(0xFFFFC000)
    v = Fraction(float(np.uint32(b).view(np.float32)))
    return v if x > 0 else -v
def expo(v):   # floor(log2 v) for Fraction v>0
    e = v.numerator.bit_length() - v.denominator.bit_length()
    if Fraction(2)**e > v: e -= 1
    elif Fraction(2)**(e+1) <= v: e += 1
    return e
def trunc_bits(v, p):  # v>=0 Fraction, keep p fraction bits of its own binade
    if v == 0: return v
    u = Fraction(2)**(expo(v) - p); return (v // u) * u
def mant(v):  # 9-bit value -> (m in [512,1023], ulp)
    e = expo(v); u = Fraction(2)**(e-9); return int(v / u), u
def mul(v, num, den, rc):   # (num*m + rc)/den  ulps
    if v == 0: return Fraction(0)
    m, u = mant(v); return Fraction(num*m + rc, den) * u
def sadd(p, q):  # signed 9-bit p,q -> 9-bit |p+q| with 1-guard-bit alignment truncation of the smaller operand
    big, sm = (p, q) if abs(p) >= abs(q) else (q, p)
    if big == 0: return Fraction(0)
    g = Fraction(2)**(expo(abs(big)) - 10)
    smt = (abs(sm) // g) * g * (1 if sm >= 0 else -1)
    return trunc_bits(abs(big + smt), 9)
def lod_one(dxx, dxy, dyx, dyy, W=64, H=32, maxlod=6):
    ax, ay, bx, by = (t9(float(np.float32(dxx))*W), t9(float(np.float32(dxy))*H),
                      t9(float(np.float32(dyx))*W), t9(float(np.float32(dyy))*H))
    terms = []
    for x, y in ((ax, ay), (bx, by)):                      # major/minor screen axes
        M, N = max(abs(x), abs(y)), min(abs(x), abs(y))
        terms.append(M + mul(N, 11, 32, 4))                 # max + 11/32 min (+1/8 ulp of min)
    for s in (1, -1):                                       # diagonals dPdx +- dPdy, weight 11/16
        X, Y = sadd(ax, s*bx), sadd(ay, s*by)
        M, N = max(X, Y), min(X, Y)
        terms.append(trunc_bits(mul(M, 11, 16, 4), 9) + mul(N, 121, 512, 32))
    v = max(terms)
    if v == 0: return 0.0
    E = expo(v); j = int((v / Fraction(2)**E - 1) * 256)    # 8-bit truncated mantissa
    lod = E + TAB[j] / 256.0
    return min(max(lod, 0.0), float(maxlod))
if __name__ == '__main__':
    import sys
    d = sys.argv[1]
    g = np.fromfile(d + '/grad_in.f32x6', dtype='<f4').reshape(-1, 6)
    Lf = np.fromfile(d + '/grad_mipl.f32', dtype='<f4'); Pf = np.fromfile(d + '/grad_mipp.f32', dtype='<f4')
    n = int(sys.argv[2]) if len(sys.argv) > 2 else len(g)
    ml = mp = 0
    for i in range(n):
        l = lod_one(*g[i, 2:])
        ml += (l != Lf[i]); mp += (np.floor(l + 0.5) != Pf[i])
    print('n', n, 'linear mismatches', ml, 'point mismatches', mp)
