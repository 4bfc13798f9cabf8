#!/usr/bin/env python3
"""Deterministic inputs for bulk_copy_forms (numpy default_rng, seed 7108): 3 blocks x 3 tiles x 8192 bytes."""
import os
import numpy as np

B, NT, BUF = 3, 3, 8192
rng = np.random.default_rng(7108)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 256, B * NT * BUF, dtype=np.uint8).tofile(os.path.join(here, "inputs", "in.bin"))
