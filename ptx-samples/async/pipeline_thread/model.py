#!/usr/bin/env python3
"""NumPy model of pipeline_thread: python3 model.py OUTDIR writes OUTDIR/out.bin and OUTDIR/out2.bin."""
import os
import sys
import numpy as np

B, TILES, T = 4, 8, 64
M = 0xFFFFFFFF
here = os.path.dirname(os.path.abspath(__file__))
x = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype="<u4").reshape(B, TILES, T, 4)
g2 = np.fromfile(os.path.join(here, "inputs", "in2.bin"), dtype=np.uint8).reshape(B, 2, T, 16)

out = np.zeros((B, TILES, T), np.uint32)
for b in range(B):
    for t in range(T):
        acc = 0x9E3779B9
        for i in range(TILES):
            vx, vy, vz, vw = (int(v) for v in x[b, i, t])
            acc = (((acc ^ vx) * 0x01000193) + (vy >> 3) - vz + ((vw << 1) & M)) & M
            out[b, i, t] = acc

out2 = np.zeros((B, T, 2), np.uint32)
for b in range(B):
    w = np.arange(2 * T * 4, dtype=np.uint32)
    zf = (np.uint32(0xC3C3C3C3) ^ w ^ np.uint32(b << 24)).astype("<u4").view(np.uint8).reshape(2, T, 16).copy()
    for t in range(T):
        n0 = 16 - t % 17                        # 16-byte copy, zfill t % 17
        zf[0, t, :16] = 0
        zf[0, t, :n0] = g2[b, 0, t, :n0]
        n1 = 8 - t % 9                          # 8-byte copy at bytes 0..7
        zf[1, t, :8] = 0
        zf[1, t, :n1] = g2[b, 1, t, :n1]
        n2 = 4 - t % 5                          # 4-byte copy at bytes 8..11
        zf[1, t, 8:12] = 0
        zf[1, t, 8:8 + n2] = g2[b, 1, t, 8:8 + n2]
    zw = zf.view("<u4").astype(np.uint64)       # (2, T, 4) words
    for t in range(T):
        n = (t + 1) % T
        z0 = [int(v) for v in zw[0, n]]
        z1 = [int(v) for v in zw[1, n]]
        out2[b, t, 0] = (z0[0] + 3 * z0[1] + 5 * z0[2] + 7 * z0[3]) & M
        out2[b, t, 1] = (z1[0] ^ ((z1[1] << 1) & M) ^ ((z1[2] << 2) & M) ^ ((z1[3] << 3) & M)) & M

os.makedirs(sys.argv[1], exist_ok=True)
out.astype("<u4").tofile(os.path.join(sys.argv[1], "out.bin"))
out2.astype("<u4").tofile(os.path.join(sys.argv[1], "out2.bin"))
