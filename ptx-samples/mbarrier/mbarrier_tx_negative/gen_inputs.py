#!/usr/bin/env python3
"""Deterministic inputs for mbarrier_tx_negative (numpy default_rng, seed 7107): in, in2: 4 blocks x 6 tiles x 512 uint32."""
import os
import numpy as np

B, NT, TILE = 4, 6, 512
rng = np.random.default_rng(7107)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
for name in ("in", "in2"):
    rng.integers(0, 2**32, B * NT * TILE, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", f"{name}.bin"))
