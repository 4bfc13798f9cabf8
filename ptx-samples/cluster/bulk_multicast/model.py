#!/usr/bin/env python3
"""Independent NumPy model of bulk_multicast: `python3 model.py OUTDIR` writes OUTDIR/dump.bin.
CTA c = blockIdx.x is rank c % 4 of cluster c // 4; chunk k of cluster q is src[q*1024 + k*256 : +256] (u32)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def main(outdir):
    src = np.fromfile(os.path.join(here, "inputs", "src.bin"), np.uint32).reshape(2, 4, 256)
    dump = np.zeros((8, 640), np.uint32)
    for c in range(8):
        q, rank = c // 4, c % 4
        dump[c, 0:256] = src[q, 0] if rank in (0, 2) else src[q, 1]   # masks 0b0101 / 0b1010
        dump[c, 256:512] = src[q, 2]                                  # mask 0b1111
        if rank in (0, 1):                                            # mask 0b0011, 512 bytes
            dump[c, 512:640] = src[q, 3, :128]
    os.makedirs(outdir, exist_ok=True)
    dump.tofile(os.path.join(outdir, "dump.bin"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: model.py OUTDIR")
    main(sys.argv[1])
