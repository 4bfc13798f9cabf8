#!/usr/bin/env python3
"""Independent NumPy model of bulk_s2s_cluster: `python3 model.py OUTDIR` writes OUTDIR/dump.bin.
CTA c is rank c % 4 of cluster c // 4. Dump of CTA c, 512 words: inbox (tile of rank r-1), acc_add (own init
+ contrib of r-1 + contrib of r+1, mod 2^32), acc_max (max(own init, contrib2 of r+2) as s32)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def main(outdir):
    v = np.fromfile(os.path.join(here, "inputs", "vals.bin"), np.uint32).reshape(8, 768)
    tile, contrib, contrib2 = v[:, :256], v[:, 256:384], v[:, 384:512].view(np.int32)
    acc_add, acc_max = v[:, 512:640], v[:, 640:768].view(np.int32)
    dump = np.zeros((8, 512), np.uint32)
    for c in range(8):
        base, r = (c // 4) * 4, c % 4
        prev, nxt, opp = base + (r + 3) % 4, base + (r + 1) % 4, base + (r + 2) % 4
        dump[c, :256] = tile[prev]
        dump[c, 256:384] = (acc_add[c].astype(np.uint64) + contrib[prev] + contrib[nxt]) & 0xFFFFFFFF
        dump[c, 384:512] = np.maximum(acc_max[c], contrib2[opp]).view(np.uint32)
    os.makedirs(outdir, exist_ok=True)
    dump.tofile(os.path.join(outdir, "dump.bin"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: model.py OUTDIR")
    main(sys.argv[1])
