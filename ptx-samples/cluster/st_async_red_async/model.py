#!/usr/bin/env python3
"""Independent NumPy model of st_async_red_async: `python3 model.py OUTDIR` writes OUTDIR/dump.bin.
CTA c receives from its peer s = c ^ 1 (clusters of 2). Dump of CTA c, 720 words: r32[64], r64[64][2],
r128[64][4], rb64[64] (lo, hi), rv2f[64][2] (f32 bits), cnt[11], 0, c64 (lo, hi), 0, 0."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
M = 0xFFFFFFFF


def s32(x):
    x &= M
    return x - (1 << 32) if x >> 31 else x


def main(outdir):
    vals = [int(v) for v in np.fromfile(os.path.join(here, "inputs", "vals.bin"), np.uint32)]
    dump = np.zeros((4, 720), np.uint32)
    for c in range(4):
        s = c ^ 1
        w = []
        w += [vals[s * 64 + t] for t in range(64)]
        for t in range(64):
            w += [s * 1000 + t, ~(s * 1000 + t) & M]
        for t in range(64):
            w += [t, s, t * t, 0xA5A5A5A5 ^ (s * 64 + t)]
        for t in range(64):
            v = ((s + 1) << 40) | (t * 0x10001)
            w += [v & M, v >> 32]
        for t in range(64):
            f = np.array([t * 0.5 - 3.0, s + 0.25], np.float32).view(np.uint32)
            w += [int(f[0]), int(f[1])]
        cnt = [0x10, (-5) & M, 0, 10, M, 0, 0x7FFFFFFF, 0x80000000, M, 0, 0x0F0F0F0F]
        c64 = 1
        for t in range(64):
            sv = (t - 30) * (t + s)
            cnt[0] = (cnt[0] + t + 1) & M
            cnt[1] = (cnt[1] + t - 40) & M
            cnt[2] = 0 if cnt[2] >= 50 else cnt[2] + 1
            cnt[3] = 40 if (cnt[3] == 0 or cnt[3] > 40) else cnt[3] - 1
            cnt[4] = min(cnt[4], (t * 2654435761) & M)
            cnt[5] = max(cnt[5], (t * 2654435761) & M)
            cnt[6] = min(s32(cnt[6]), sv) & M
            cnt[7] = max(s32(cnt[7]), sv) & M
            cnt[8] &= ~(1 << ((t * 3 + s) % 32)) & M
            cnt[9] |= 1 << ((t * 5 + s) % 32)
            cnt[10] ^= vals[256 + s * 64 + t]
            c64 = (c64 + (t << 33) + s) & (2**64 - 1)
        w += cnt + [0, c64 & M, c64 >> 32, 0, 0]
        assert len(w) == 720
        dump[c] = w
    os.makedirs(outdir, exist_ok=True)
    dump.tofile(os.path.join(outdir, "dump.bin"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: model.py OUTDIR")
    main(sys.argv[1])
