#!/usr/bin/env python3
"""Deterministic inputs for bulk_s2s_cluster (numpy default_rng, seed 9007): vals, u32 [8 CTAs x 768]:
per CTA tile[256], contrib[128], contrib2[128] (s32 bits), acc_add[128], acc_max[128] (s32 bits)."""
import os
import numpy as np

rng = np.random.default_rng(9007)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)
rng.integers(0, 2**32, 8 * 768, dtype=np.uint64).astype(np.uint32).tofile(os.path.join(here, "inputs", "vals.bin"))
