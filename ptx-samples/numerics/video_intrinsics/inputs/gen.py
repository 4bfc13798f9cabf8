#!/usr/bin/env python3
"""Writes a.bin and b.bin (numpy seed 20261127): 512 lanes, see source.cu."""
import os
import numpy as np

ADV = [0x0, 0x1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x7F7F7F7F, 0x80808080, 0xFFFF0000, 0x0000FFFF,
       0x7FFF8000, 0x80007FFF, 0x017F80FF, 0xFF807F01, 0x00FF00FF, 0x12345678, 0xFEDCBA98]
SPECIAL = np.array([0x00, 0x01, 0x7F, 0x80, 0x81, 0xFE, 0xFF, 0x02], dtype=np.uint32)
rng = np.random.default_rng(20261127)


def structured(n):
    out = np.zeros(n, dtype=np.uint32)
    for k in range(4):
        byte = np.where(rng.random(n) < 0.5, SPECIAL[rng.integers(0, 8, n)], rng.integers(0, 256, n))
        out |= byte.astype(np.uint32) << np.uint32(8 * k)
    return np.where(rng.random(n) < 0.3, rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32), out)


i = np.arange(256)
a = np.concatenate([np.array(ADV, np.uint32)[i // 16], structured(256)]).astype(np.uint32)
b = np.concatenate([np.array(ADV, np.uint32)[i % 16], structured(256)]).astype(np.uint32)
here = os.path.dirname(os.path.abspath(__file__))
a.tofile(os.path.join(here, "a.bin"))
b.tofile(os.path.join(here, "b.bin"))
