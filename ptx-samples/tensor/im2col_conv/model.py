#!/usr/bin/env python3
"""NumPy model of im2col_conv: the same fmaf chain (taps r, s in order, channels in order) in f32."""
import os
import sys
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
x = np.fromfile(os.path.join(here, "inputs", "x.bin"), dtype=np.float32).reshape(2, 6, 8, 16)
w = np.fromfile(os.path.join(here, "inputs", "w.bin"), dtype=np.float32).reshape(8, 3, 3, 16)
xp = np.zeros((2, 8, 10, 16), dtype=np.float32)
xp[:, 1:7, 1:9, :] = x
out = np.zeros((2, 6, 8, 8), dtype=np.float32)
for n in range(2):
    for p in range(6):
        for q in range(8):
            for k in range(8):
                acc = np.float64(0.0)
                for r in range(3):
                    for s in range(3):
                        for c in range(16):
                            # fmaf: one rounding of the exact product plus the accumulator
                            acc = np.float32(np.float64(xp[n, p + r, q + s, c]) * np.float64(w[k, r, s, c]) + np.float64(acc))
                out[n, p, q, k] = acc
if len(sys.argv) > 1:
    got = np.fromfile(sys.argv[1], dtype=np.float32).reshape(out.shape)
    bad = np.argwhere(got.view(np.uint32) != out.view(np.uint32))
    print(f"{len(bad)} of {out.size} outputs differ from the model")
    sys.exit(1 if len(bad) else 0)
out.tofile(os.path.join(here, "model_out.bin"))
