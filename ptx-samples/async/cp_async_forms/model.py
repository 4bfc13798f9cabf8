#!/usr/bin/env python3
"""NumPy model of cp_async_forms: python3 model.py OUTDIR writes OUTDIR/dump.bin and OUTDIR/chk.bin."""
import os
import sys
import numpy as np

B, T = 4, 128
R0, R1, R2, R3, R4, R5, R6, R7, R8 = 0, 1024, 3072, 5120, 7168, 9216, 11264, 13312, 14336
SMEM = 14848
S0, S1, S2, S3, S4, S5, S6, S7, S8 = 0, 512, 1536, 3584, 5632, 7680, 9728, 11776, 12800
SRC = 13312
M = 0xFFFFFFFF

here = os.path.dirname(os.path.abspath(__file__))
src = np.fromfile(os.path.join(here, "inputs", "src.bin"), dtype=np.uint8).reshape(B, SRC)


def cp(sm, d, g, s, size, srcsize=None):
    """one cp.async: copy srcsize (default size) bytes from g[s:], zero the rest of size bytes at sm[d:]"""
    n = size if srcsize is None else srcsize
    sm[d:d + size] = 0
    sm[d:d + n] = g[s:s + n]


def word(sm, byte_off):
    return int(sm[byte_off:byte_off + 4].view(np.uint32)[0])


dump = np.zeros((B, SMEM // 4), np.uint32)
chk = np.zeros((B, T), np.uint32)
for b in range(B):
    g = src[b]
    w = np.arange(SMEM // 4, dtype=np.uint64)
    sm = ((0xA5000000 ^ ((w * 0x01000193) & M) ^ (b << 20)) & M).astype("<u4").view(np.uint8).copy()
    for t in range(T):
        cp(sm, R0 + 8 * t, g, S0 + 4 * t, 4)
        cp(sm, R1 + 16 * t, g, S1 + 8 * t, 8)
        cp(sm, R2 + 16 * t, g, S2 + 16 * t, 16)
        cp(sm, R3 + 16 * ((5 * t) % T), g, S3 + 16 * t, 16)
        cp(sm, R4 + 16 * t, g, S4 + 16 * t, 16, t % 17)
        cp(sm, R5 + 16 * t, g, S5 + 16 * t, 16, 0 if t % 3 == 0 else 16)   # ignore-src -> all zeros
        cp(sm, R6 + 16 * t, g, S6 + 16 * t, 16, None if t < T // 2 else (t & 15))   # cg 16 / ca 16 with src-size
        cp(sm, R7 + 8 * t, g, S7 + 8 * t, 8, t % 9)
        cp(sm, R8 + 4 * t, g, S8 + 4 * t, 4, t % 5)
    # every thread reads only bytes that it copied itself (each destination byte has exactly one writer)
    for t in range(T):
        c = 3 * word(sm, R0 + 8 * t)
        c += 5 * word(sm, R1 + 16 * t) + 7 * word(sm, R1 + 16 * t + 4)
        for k in range(4):
            c += (11 + 2 * k) * word(sm, R2 + 16 * t + 4 * k)
        c &= M
        for k in range(4):
            c ^= (word(sm, R3 + 16 * ((5 * t) % T) + 4 * k) << k) & M
        for k in range(4):
            c += (101 + k) * word(sm, R4 + 16 * t + 4 * k) + (201 + k) * word(sm, R5 + 16 * t + 4 * k)
        c += 301 * word(sm, R8 + 4 * t)
        chk[b, t] = c & M
    dump[b] = sm.view("<u4")

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dump.astype("<u4").tofile(os.path.join(out, "dump.bin"))
chk.astype("<u4").tofile(os.path.join(out, "chk.bin"))
