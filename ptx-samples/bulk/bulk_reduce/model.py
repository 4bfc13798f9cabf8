#!/usr/bin/env python3
"""NumPy model of bulk_reduce: python3 model.py OUTDIR writes OUTDIR/g32.bin, g64.bin, g16.bin.
Every block's shared segment is reduced element-wise into the global segment (inc.u32 twice per block);
the inputs make each result independent of the order of the blocks, so blocks are applied in index order."""
import os
import sys
import numpy as np

B, N = 4, 128
here = os.path.dirname(os.path.abspath(__file__))
rd = lambda name, dt: np.fromfile(os.path.join(here, "inputs", name + ".bin"), dtype=dt)
s32 = rd("src32", "<u4").reshape(B, 12, N)
s64 = rd("src64", "<u8").reshape(B, 9, N)
s16 = rd("src16", "<u2").reshape(B, 6, N)
g32 = rd("g32_init", "<u4").reshape(12, N).copy()
g64 = rd("g64_init", "<u8").reshape(9, N).copy()
g16 = rd("g16_init", "<u2").reshape(6, N).copy()

f16 = lambda bits: bits.view(np.float16).astype(np.float64)
to_f16 = lambda x: np.asarray(x, np.float16).view(np.uint16)
bf = lambda bits: (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
to_bf = lambda x: (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)   # exact values only


def inc(old, bound):
    return np.where(old >= bound, 0, old + 1).astype(np.uint32)


def dec(old, bound):
    return np.where((old == 0) | (old > bound), bound, old - 1).astype(np.uint32)


for b in range(B):
    a, c = s32[b], s64[b]
    g32[0] = g32[0] + a[0]                                                  # add.u32 (wraps)
    g32[1] = (g32[1].view(np.int32) + a[1].view(np.int32)).view(np.uint32)  # add.s32
    g32[2] = np.minimum(g32[2], a[2])
    g32[3] = np.maximum(g32[3], a[3])
    g32[4] = np.minimum(g32[4].view(np.int32), a[4].view(np.int32)).view(np.uint32)
    g32[5] = np.maximum(g32[5].view(np.int32), a[5].view(np.int32)).view(np.uint32)
    g32[6] = inc(inc(g32[6], a[6]), a[6])                                   # issued twice per block
    g32[7] = dec(g32[7], a[7])
    g32[8] &= a[8]
    g32[9] |= a[9]
    g32[10] ^= a[10]
    g32[11] = (g32[11].view(np.float32) + a[11].view(np.float32)).view(np.uint32)   # exact
    g64[0] = g64[0] + c[0]
    g64[1] = np.minimum(g64[1], c[1])
    g64[2] = np.maximum(g64[2], c[2])
    g64[3] = np.minimum(g64[3].view(np.int64), c[3].view(np.int64)).view(np.uint64)
    g64[4] = np.maximum(g64[4].view(np.int64), c[4].view(np.int64)).view(np.uint64)
    g64[5] &= c[5]
    g64[6] |= c[6]
    g64[7] ^= c[7]
    g64[8] = (g64[8].view(np.float64) + c[8].view(np.float64)).view(np.uint64)       # exact
    h = s16[b]
    g16[0] = to_f16(f16(g16[0]) + f16(h[0]))
    g16[1] = to_bf(bf(g16[1]) + bf(h[1]))
    g16[2] = to_f16(np.minimum(f16(g16[2]), f16(h[2])))
    g16[3] = to_f16(np.maximum(f16(g16[3]), f16(h[3])))
    g16[4] = to_bf(np.minimum(bf(g16[4]), bf(h[4])))
    g16[5] = to_bf(np.maximum(bf(g16[5]), bf(h[5])))

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
g32.astype("<u4").tofile(os.path.join(out, "g32.bin"))
g64.astype("<u8").tofile(os.path.join(out, "g64.bin"))
g16.astype("<u2").tofile(os.path.join(out, "g16.bin"))
