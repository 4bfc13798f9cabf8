#!/usr/bin/env python3
"""Deterministic inputs for divergent_loops (numpy default_rng, seed 707). Writes inputs/in.bin (u32).
Mostly small numbers (Collatz counts under the 300 cap) plus large ones (some hit the cap), zeros (early exit)
and values that pick every switch case."""
import os
import numpy as np

N = 512
rng = np.random.default_rng(707)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

v = rng.integers(1, 100000, N).astype(np.uint32)
v[::5] = rng.integers(1, 2**32, len(v[::5]), dtype=np.uint64).astype(np.uint32)
v[::37] = 0
v[1:12] = np.arange(1, 12) * 1000003 % 2**32
v[12:20] = [1, 2, 3, 27, 97, 871, 0x1000, 0xF123]
v[20] = 0x8000
v[21] = 77031                                    # long Collatz chain
v.tofile(os.path.join(here, "inputs", "in.bin"))
