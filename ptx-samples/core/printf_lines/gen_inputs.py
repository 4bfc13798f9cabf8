#!/usr/bin/env python3
"""Deterministic inputs for printf_lines (numpy default_rng, seed 909). Writes inputs/*.bin (raw little-endian).
Floats are multiples of 1/8: %.3f is exact, while %g (6 digits) meets exact decimal ties, which the
GPU's printf resolves to even (glibc style), e.g. -9349.875 -> -9349.88."""
import os
import numpy as np

N = 64
rng = np.random.default_rng(909)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
v = rng.integers(-100000, 100000, N).astype(np.int32)
f = (rng.integers(-80000, 80000, N) / 8.0).astype(np.float32)
v.tofile(os.path.join(here, "inputs", "in.bin"))
f.tofile(os.path.join(here, "inputs", "fin.bin"))
