#!/usr/bin/env python3
"""Deterministic inputs for st_async_release (numpy default_rng, seed 3103): in, i32 [258]:
[0, 256) the payloads of clusters 0 and 1 (128 each), [256, 258) their header words."""
import os
import numpy as np

rng = np.random.default_rng(3103)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(-1000000, 1000000, 258, dtype=np.int32).tofile(os.path.join(here, "inputs", "in.bin"))
