#!/usr/bin/env python3
"""Deterministic inputs for int64_conv (numpy default_rng, seed 1206). Writes inputs/*.bin (raw little-endian)."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(1206)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

I64MIN, I64MAX = -2**63, 2**63 - 1
sa = [0, 1, -1, I64MAX, I64MIN, I64MIN, I64MIN + 1, 7, -7, 10**18, -10**18, 2**53 + 1, -(2**53 + 1), 2**62 + 3,
      12345678901234567, -9876543210987, 2**63 - 1024, 2**63 - 513, 2**24 + 1, -(2**24 + 3), 2**53 + 3, 100, -100, 5]
sb = [1, 0, 3, -1, -1, 1, -2, -7, 7, -10**9, 3, 2**32, 7, -2**62, 1000, 10**12, -1, 2**31, 2**63 - 1, -5,
      I64MIN, -100, 100, 0]
a = rng.integers(I64MIN, I64MAX, N, dtype=np.int64)
b = rng.integers(I64MIN, I64MAX, N, dtype=np.int64)
a[64:128] = rng.integers(-10**6, 10**6, 64)
b[64:128] = rng.integers(-1000, 1000, 64)
b[128:160] = rng.integers(-2**31, 2**31, 32)
a[:len(sa)], b[:len(sb)] = sa, sb
sd = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 9.223372036854775807e18, -9.223372036854775808e18,
      1.8446744073709552e19, 2e19, -1e19, 4294967295.5, 4294967296.0, -2147483648.5, 2147483647.5, -1.0, 1e-300,
      -1e-300, 2.0**53 + 2, -(2.0**62), 2.0**63, 123456789.75, -123456789.25, 3e9, -3e9, 1e300, -0.9999999]
d = rng.uniform(-1e19, 1e19, N)
d[32:96] = rng.uniform(-5e9, 5e9, 64)
d[96:160] = rng.uniform(-1000, 1000, 64)
d[:len(sd)] = sd
i = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
i[:8] = [0, -1, 1, -2**31, 2**31 - 1, -7, 7, 255]
for name, arr in dict(a=a, b=b, d=d, i=i).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
