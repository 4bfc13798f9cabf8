"""Inputs of the 16-bit bulk min/max sample: 8 CTAs x 2048 halves of operands (src.bin) and of
initial global memory (dst.bin); CTAs 0-3 hold f16 values, 4-7 bf16, half special values
(NaNs of several payloads, signed zeros, infinities, subnormals, extremes), half random bits."""
import os

import numpy as np

N = 2048
rng = np.random.default_rng(20261129)
f16_special = np.array([0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0x0001, 0x83ff, 0x0400, 0x8400,
                        0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x1400, 0x6400, 0x0200, 0x7fff, 0xfd00], dtype=np.uint16)
bf16_special = np.array([0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, 0x0001, 0x807f, 0x0080, 0x8080,
                         0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x3380, 0x4b80, 0x0040, 0x7fff, 0xffa0], dtype=np.uint16)


def halves(special):
    h = rng.integers(0, 2**16, N, dtype=np.uint32).astype(np.uint16)
    pick = rng.random(N) < 0.5
    h[pick] = rng.choice(special, pick.sum())
    return h


def block(cta):
    return halves(f16_special if cta < 4 else bf16_special)


here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
np.concatenate([block(c) for c in range(8)]).tofile(os.path.join(here, "inputs", "src.bin"))
np.concatenate([block(c) for c in range(8)]).tofile(os.path.join(here, "inputs", "dst.bin"))
