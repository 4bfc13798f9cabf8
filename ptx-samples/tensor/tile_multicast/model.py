#!/usr/bin/env python3
"""Independent NumPy model of tile_multicast: `python3 model.py OUTDIR` writes OUTDIR/dump.bin.
Box layout as in ../tile_load_dump/model.py (dense box, dim 0 fastest, zero fill out of bounds, 128B swizzle:
the 16-byte chunk at offset o goes to o ^ (((o >> 7) & 7) << 4)). CTA c = blockIdx.x has cluster id c // 4
and rank c % 4; every rank gets box A, ranks 1 and 2 box B."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def box2d(buf, es, dims, row_bytes, box, coords, swizzle128=False):
    assert coords[0] * es % 16 == 0   # else the GPU raises an illegal instruction
    src = np.frombuffer(buf, np.uint8)
    out = bytearray(box[0] * box[1] * es)
    for y in range(box[1]):
        for x in range(box[0]):
            gx, gy = coords[0] + x, coords[1] + y
            if 0 <= gx < dims[0] and 0 <= gy < dims[1]:
                o = (y * box[0] + x) * es
                s = gy * row_bytes + gx * es
                out[o:o + es] = src[s:s + es].tobytes()
    if swizzle128:
        res = bytearray(len(out))
        for o in range(0, len(out), 16):
            p = o ^ (((o >> 7) & 7) << 4)
            res[p:p + 16] = out[o:o + 16]
        out = res
    return bytes(out)


def main(outdir):
    a = open(os.path.join(here, "inputs", "a.bin"), "rb").read()
    hb = open(os.path.join(here, "inputs", "hb.bin"), "rb").read()
    dump = b""
    for c in range(8):
        cid, rank = c // 4, c % 4
        ta = box2d(a, 4, [40, 24], 160, [32, 8], [cid * 20 - 8, cid * 18 - 3])
        tb = box2d(hb, 2, [72, 20], 144, [64, 8], [cid * 32 - 8, cid * 17 - 2], swizzle128=True) if rank in (1, 2) else bytes(1024)
        dump += ta + tb
    os.makedirs(outdir, exist_ok=True)
    open(os.path.join(outdir, "dump.bin"), "wb").write(dump)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: model.py OUTDIR")
    main(sys.argv[1])
