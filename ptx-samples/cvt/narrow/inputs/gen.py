#!/usr/bin/env python3
"""Writes x32.bin and x16.bin (numpy seed 20261124): see source.cu."""
import os
import numpy as np

rng = np.random.default_rng(20261124)
specials = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001,
            0x7FBFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
            0x7F7FFFFF, 0xFF7FFFFF, 0x7F7FE000, 0x7F7FEFFF, 0x7F7FF000, 0x7F7FF001, 0x3F800000, 0xBF800000]
for v in [448, 464, 464.0001, 479.99, 480, 500, 57344, 57344 * 1.0625, 61440, 61441, 65504, 65519.99, 65520,
          1 / 512, 1 / 1024, 3 / 2048, 2 ** -16, 2 ** -17, 3 * 2 ** -18, 2 ** -24, 2 ** -25, 3 * 2 ** -26,
          2 ** -126, 2 ** -133, 2 ** -134, 2 ** -149, 3.3895314e38, 3.3961776e38, 1e-45, 0.1, 1 / 3]:
    b = int(np.float32(v).view(np.uint32))
    specials += [b, b | 0x80000000, b + 1, b - 1, (b + 1) | 0x80000000]
vals = [s & 0xFFFFFFFF for s in specials]
# Ties and their neighbours at the rounding bit of each narrow format (f32 fraction bit 12: tf32 and f16;
# 15: bf16; 19: e4m3; 20: e5m2), random upper fraction bits, over every exponent.
while len(vals) < 6144:
    t = int(rng.choice([12, 15, 19, 20]))
    exp = int(rng.integers(0, 256))
    upper = int(rng.integers(0, 1 << 23)) & ~((1 << (t + 1)) - 1)
    low = (1 << t) + int(rng.choice([-1, 0, 0, 1]))
    sign = int(rng.integers(0, 2)) << 31
    vals.append(sign | exp << 23 | upper | low)
vals += [int(v) for v in rng.integers(0, 1 << 32, 1024, dtype=np.uint64)]
vals += [int(np.float32(v).view(np.uint32)) for v in rng.uniform(-600, 600, 1024)]
x32 = np.array(vals[:8192], dtype=np.uint32)
assert len(x32) == 8192
here = os.path.dirname(os.path.abspath(__file__))
x32.tofile(os.path.join(here, "x32.bin"))
np.arange(65536, dtype=np.uint16).tofile(os.path.join(here, "x16.bin"))
