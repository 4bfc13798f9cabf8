#!/usr/bin/env python3
"""Runs the sets of scripts/probes/grad_probe.cu through ptxrun and counts the results that differ
from the GPU's, or stop as `unsupported`.

    nvcc -arch=sm_90 -ptx scripts/probes/grad_probe.cu -o probe.ptx
    scripts/probes/grad_check.py PROBE_OUT probe.ptx [--ptxrun target/release/ptxrun]

Each set is one launch: the probe's gradient records are its buffer, its texture a mipmapped f32
texture whose level l holds l (point within levels, linear between), with the probe's bias and
clamps; a result is the lod after them.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
from setrun import table_row, write_launch

K2 = "_Z6kgrad2yPK1GPfi"
K1 = "_Z6kgrad1yPK1GPfi"
# name: (W, H (0: 1D), levels, bias, min_lod, max_lod), as grad_probe.cu makes them
SETS = {"g_64x32": (64, 32, 7, 0, 0, 6), "g_256x256": (256, 256, 9, 0, 0, 8),
        "g_1024x16": (1024, 16, 11, 0, 0, 10), "g_100x60": (100, 60, 7, 0, 0, 6),
        "g_64x32_bias": (64, 32, 7, 0.3, 1.25, 4.5), "g_64x32_neg": (64, 32, 7, -0.7, 0, 20),
        "g_1d_512": (512, 0, 10, 0, 0, 9), "g_1d_300": (300, 0, 9, 0.45, 0.5, 7.25)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probe")
    ap.add_argument("ptx")
    ap.add_argument("--ptxrun", default="target/release/ptxrun")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="gradchk")
    probe, ptx = os.path.abspath(a.probe), os.path.abspath(a.ptx)
    print("| set | results | differ | note |\n|---|---|---|---|")
    for name, (w, h, levels, bias, lo, hi) in SETS.items():
        dims = [w, h] if h else [w]
        texels = np.concatenate([np.full(int(np.prod([max(1, d >> lv) for d in dims])), lv, np.float32)
                                 for lv in range(levels)])
        tpath = os.path.join(work, name + ".texels")
        texels.tofile(tpath)
        inputs = os.path.join(probe, name + ".in")
        n = os.path.getsize(inputs) // 24
        tex = dict(type="f32", dims=dims, levels=levels, normalized=True, mipmap_filter="linear",
                   lod_bias=float(bias), min_lod=float(lo), max_lod=float(hi))
        lf = write_launch(work, ptx, name, K2 if h else K1, n, tpath, tex, inputs, 24, n)
        gpu = np.fromfile(os.path.join(probe, name + ".out"), np.uint32)
        print(table_row(a.ptxrun, lf, [os.path.dirname(ptx), probe, work], name, gpu))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
