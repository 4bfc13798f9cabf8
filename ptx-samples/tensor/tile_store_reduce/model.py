#!/usr/bin/env python3
"""Independent NumPy model of tile_store_reduce: `python3 model.py OUTDIR` writes out/vol/acc/facc/mx .bin.
A tile store writes the box's in-bound elements (dense box in shared memory, dim 0 fastest) to their global
addresses and nothing else; a tile reduction combines them in place (add, max)."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def box_apply(flat, dims, row_elems, plane_elems, box, coords, tile, op):
    """flat: the buffer as elements; rows of row_elems, planes of plane_elems elements (3d)."""
    # else the GPU raises an illegal instruction (measured): stores/reductions start in bounds, 16-byte aligned
    assert coords[0] * tile.itemsize % 16 == 0 and min(coords) >= 0
    tile = tile.reshape(box[::-1])            # [z][y][x] or [y][x]
    it = np.ndindex(*box[::-1])
    for k in it:
        k = k[::-1]                           # (x, y[, z])
        g = [coords[i] + k[i] for i in range(len(box))]
        if not all(0 <= g[i] < dims[i] for i in range(len(box))):
            continue
        off = g[0] + g[1] * row_elems + (g[2] * plane_elems if len(g) > 2 else 0)
        v = tile[tuple(k[::-1])]
        flat[off] = op(flat[off], v)


def main(outdir):
    rd = lambda n, dt: np.fromfile(os.path.join(here, "inputs", n + ".bin"), dtype=dt)
    out = np.full(1056, -1.5, np.float32)
    vol = np.full(1152, 48879, np.uint16)
    acc, facc, mx = rd("acc", np.int32).copy(), rd("facc", np.float32).copy(), rd("mx", np.uint32).copy()
    put = lambda old, v: v
    for b in range(8):
        bx, by = b % 4, b // 4
        i256, i128 = np.arange(256), np.arange(128)
        tout = (b * 256 + i256).astype(np.float32)
        tvol = (b * 1000 + i256).astype(np.uint16)
        tacc = ((b + 1) * ((i128 * 5) % 11) - 20).astype(np.int32)
        tfacc = (0.5 * ((i128 * 3 + b) % 17) - 4.0).astype(np.float32)
        box_apply(out, [40, 20], 48, 0, [16, 16], [bx * 16, by * 16], tout, put)
        box_apply(vol, [24, 6, 5], 32, 192, [16, 4, 4], [(b % 2) * 16, ((b // 2) % 2) * 4, by * 4], tvol, put)
        box_apply(acc, [24, 12], 24, 0, [16, 8], [bx * 4, by * 5], tacc, lambda o, v: np.int32(o + v))
        box_apply(facc, [24, 12], 24, 0, [16, 8], [(3 - bx) * 4, by * 3], tfacc, lambda o, v: np.float32(o + v))
        box_apply(mx, [24, 12], 24, 0, [16, 8], [bx * 8, by * 6], tacc.view(np.uint32), max)
    os.makedirs(outdir, exist_ok=True)
    for name, arr in dict(out=out, vol=vol, acc=acc, facc=facc, mx=mx).items():
        arr.tofile(os.path.join(outdir, name + ".bin"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: model.py OUTDIR")
    main(sys.argv[1])
