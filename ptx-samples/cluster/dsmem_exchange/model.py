#!/usr/bin/env python3
"""Independent NumPy model of dsmem_exchange: `python3 model.py OUTDIR` writes OUTDIR/out.bin.
CTA c = blockIdx.x is rank c % 4 of cluster c // 4 (a 1-d grid of 4-CTA clusters)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
M = 0xFFFFFFFF


def main(outdir):
    vals = np.fromfile(os.path.join(here, "inputs", "vals.bin"), np.uint32).reshape(8, 64)
    out = np.zeros((8, 384), np.uint64)
    # rank 0's counters after the 256 threads of its cluster (g = rank * 64 + t)
    g = range(256)
    cnt0 = [256, sum(range(256)) & M, sum(x * x + 7 for x in g) & M, max((x * 37) % 251 for x in g), 0, M, 0x12345678, 0]
    for x in g:
        cnt0[4] |= 1 << ((x * 7) % 29)
        cnt0[5] &= ~(1 << ((x * 5 + 3) % 31)) & M
        cnt0[6] ^= ((x + 1) * 0x9E3779B9) & M
        cnt0[7] = 0 if cnt0[7] >= 100 else cnt0[7] + 1
    ident = [0, 0, 0, 0, 0, M, 0x12345678, 0]
    for c in range(8):
        cid, rank = c // 4, c % 4
        nxt, prv = (rank + 1) % 4, (rank + 3) % 4
        t = np.arange(64)
        out[c, 0:64] = vals[cid * 4 + nxt]
        out[c, 64:128] = vals[cid * 4 + prv][::-1]
        p = cid * 4 + prv
        out[c, 128:192] = p * 1000 + prv * 100 + t
        out[c, 192:256] = nxt | (prv << 8)
        out[c, 256:264] = cnt0 if rank == 0 else ident
        out[c, 264:280] = [rank, 4, cid, 0, 0, 2, 1, 1, rank, 0, 0, 4, 1, 1, 1, rank + 100 * 4]
    os.makedirs(outdir, exist_ok=True)
    out.astype(np.uint32).tofile(os.path.join(outdir, "out.bin"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: model.py OUTDIR")
    main(sys.argv[1])
