#!/usr/bin/env python3
"""Deterministic inputs for st_async_red_async (numpy default_rng, seed 9006): vals, u32 [512]:
[0,256) the st.async.b32 values of CTA s thread t (s*64+t), [256,512) the red.async.xor.b32 operands."""
import os
import numpy as np

rng = np.random.default_rng(9006)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, 512, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "vals.bin"))
