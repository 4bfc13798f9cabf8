#!/usr/bin/env python3
"""Independent NumPy model of tile_load_dump: `python3 model.py OUTDIR` writes OUTDIR/dump.bin.

What the model assumes the hardware does for a tile-mode load (interleave none):
  - the box lands densely in shared memory, dim 0 fastest; along dim i >= 1 it holds ceil(box[i] /
    element_strides[i]) elements, at global coordinates c_i, c_i + s_i, c_i + 2 s_i, ... (element_strides[0]
    is ignored: box[0] consecutive elements along dim 0);
  - an element with any coordinate outside [0, dims[i]) is filled: zero bytes, or with oob_fill = nan the NaN
    0x7FF77FF7 for f32 (not the canonical 0x7FFFFFFF: that is what an H100 writes);
  - swizzle permutes 16-byte chunks: the chunk at byte offset o of the box (the box starts 1024-byte aligned)
    goes to o ^ (((o >> 7) & m) << 4), m = 7 (128B), 3 (64B), 1 (32B).
"""
import math
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
NAN_FILL = {4: bytes.fromhex("f77ff77f")}   # f32: 0x7FF77FF7, measured on an H100 (driver 580.159.04)
SWZ_MASK = {"none": 0, "32B": 1, "64B": 3, "128B": 7}


def tma_box(buf, es, dims, strides, box, coords, estr=None, swizzle="none", oob="zero"):
    rank = len(dims)
    assert coords[0] * es % 16 == 0, "the GPU faults (illegal instruction) unless the box starts 16-byte aligned in dim 0"
    estr = estr or [1] * rank
    st = [es] + list(strides)
    n = [box[0]] + [math.ceil(box[i] / estr[i]) for i in range(1, rank)]
    idx = np.indices(n[::-1]).reshape(rank, -1)[::-1]          # idx[i] = k_i, C order: dim 0 fastest
    g = [coords[i] + idx[i] * (estr[i] if i else 1) for i in range(rank)]
    inb = np.ones(idx.shape[1], bool)
    off = np.zeros(idx.shape[1], np.int64)
    for i in range(rank):
        inb &= (g[i] >= 0) & (g[i] < dims[i])
        off += g[i] * st[i]
    src = np.frombuffer(buf, np.uint8)
    fill = np.frombuffer(NAN_FILL[es] if oob == "nan" else bytes(es), np.uint8)
    out = np.empty((idx.shape[1], es), np.uint8)
    for e in range(es):
        out[:, e] = np.where(inb, src[np.where(inb, off, 0) + e], fill[e])
    logical = out.reshape(-1)
    m = SWZ_MASK[swizzle]
    if m:
        o = np.arange(logical.size)
        phys = o ^ (((o >> 7) & m) << 4)
        res = np.empty_like(logical)
        res[phys] = logical
        logical = res
    return logical.tobytes()


def main(outdir):
    rd = lambda n: open(os.path.join(here, "inputs", n + ".bin"), "rb").read()
    v1, g2, h, w, c, q = (rd(n) for n in ("v1", "g2", "h", "w", "c", "q"))
    dump = b""
    for b in range(8):
        bx, by = b % 4, b // 4
        parts = [
            tma_box(v1, 4, [100], [], [32], [-32 if b == 6 else 100 if b == 7 else b * 12 - 20]),
            tma_box(g2, 4, [50, 30], [256], [16, 8], [bx * 16 - 8, by * 26 - 3]),
            tma_box(h, 2, [100, 40], [208], [64, 16], [bx * 24 - 16, by * 30 - 4], swizzle="128B"),
            tma_box(g2, 4, [50, 30], [256], [16, 8], [b * 8 - 8, b * 3 - 2], swizzle="64B"),
            tma_box(w, 4, [20, 20], [80], [8, 8], [(bx * 7 - 4) & ~3, by * 15 - 1], swizzle="32B"),
            tma_box(c, 1, [37, 9, 6], [48, 432], [32, 4, 4], [(b % 2) * 32 - 16, ((b // 2) % 2) * 6 - 1, by * 4 - 1]),
            tma_box(q, 4, [8, 3, 4, 2, 3], [32, 96, 384, 768], [4, 2, 2, 2, 2],
                    [(b % 3 - 1) * 4, ((b // 2) % 2) * 2 - 1, b % 3 - 1, by, bx - 1]),
            tma_box(w, 4, [20, 20], [80], [8, 8], [bx * 4 - 4, by * 17 - 3], estr=[1, 2]),
            tma_box(g2, 4, [50, 30], [256], [8, 8], [bx * 16 - 4, by * 27 - 2], oob="nan"),
        ]
        assert [len(p) for p in parts] == [128, 512, 2048, 512, 256, 512, 256, 128, 256]
        dump += b"".join(parts)
    assert len(dump) == 9216 * 4
    os.makedirs(outdir, exist_ok=True)
    open(os.path.join(outdir, "dump.bin"), "wb").write(dump)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: model.py OUTDIR")
    main(sys.argv[1])
