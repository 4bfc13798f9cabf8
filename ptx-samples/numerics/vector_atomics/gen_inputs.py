"""Inputs of the vector-atomics sample: 13 forms x 2048 threads x 16 bytes of operands (ops.bin)
and of initial memory (mem.bin), adversarial for each form's element type."""
import os

import numpy as np

N, FORMS = 2048, 13
F32 = [0, 1, 2, 12]           # forms on f32 elements
BF16 = [5, 7, 9, 10]          # forms on bf16 elements (the rest: f16)
rng = np.random.default_rng(20261129)

f32_special = np.array([0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001,
                        0x00000001, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000,
                        0xbf800000, 0x33800000, 0x4b800000, 0x00400000], dtype=np.uint32)
f16_special = np.array([0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0x0001, 0x83ff, 0x0400, 0x8400,
                        0x7bff, 0xfbff, 0x3c00, 0xbc00, 0x1400, 0x6400, 0x0200], dtype=np.uint16)
bf16_special = np.array([0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, 0x0001, 0x807f, 0x0080, 0x8080,
                         0x7f7f, 0xff7f, 0x3f80, 0xbf80, 0x3380, 0x4b80, 0x0040], dtype=np.uint16)


def words(form):
    """16 bytes per thread as 4 u32 words: half special values, half random bits."""
    if form in F32:
        w = rng.integers(0, 2**32, (N, 4), dtype=np.uint64).astype(np.uint32)
        pick = rng.random((N, 4)) < 0.5
        w[pick] = rng.choice(f32_special, pick.sum())
        return w
    special = bf16_special if form in BF16 else f16_special
    h = rng.integers(0, 2**16, (N, 8), dtype=np.uint32).astype(np.uint16)
    pick = rng.random((N, 8)) < 0.5
    h[pick] = rng.choice(special, pick.sum())
    return h.view(np.uint32).reshape(N, 4)


here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
ops = np.concatenate([words(f) for f in range(FORMS)])
mem = np.concatenate([words(f) for f in range(FORMS)])
ops.tofile(os.path.join(here, "inputs", "ops.bin"))
mem.tofile(os.path.join(here, "inputs", "mem.bin"))
