#!/usr/bin/env python3
"""Deterministic inputs for math_lib (numpy default_rng, seed 1202). Writes inputs/*.bin (raw little-endian).
The first 48 elements are special values (signed zeros, infinities, NaN, a subnormal, huge trig arguments,
values next to 1, exact powers); the rest are uniform in [-20, 20] (x) and [-4, 4] (y), so that no f32
function built on approximate instructions returns a subnormal (its last bits would dominate a relative
tolerance)."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(1202)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

inf, nan = np.inf, np.nan
sx = [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-20, -1e-20, 1e-40, 10.0, -10.0, 50.0,
      -50.0, 80.0, -80.0, 1e30, -1e30, 3.14159265, -3.14159265, 1.5707963, 12345.678, -98765.4, 1.0000001,
      0.99999994, 1e-3, 4.0, 8.0, 27.0, -27.0, 0.125, 100.0, 0.01, 1e5, 7.0, 0.1, 88.0, 9.0, -9.0, 0.3,
      1e10, -1e10, 6.2831855, 16.0, 3.0]
sy = [2.0, 3.0, -1.0, 0.5, 0.0, nan, inf, 3.0, -2.0, 10.0, 1.0, -1.0, 0.5, -4.0, 3.0, 0.5, 2.0, 1.5,
      -1.5, 0.0, 1.0, 2.0, 3.0, -3.0, 0.25, 1.0, 1e6, -1e6, -2.0, 0.5, 1.0 / 3.0, 1.0 / 3.0, 3.0, -3.0,
      -0.5, -3.5, 0.2, 2.5, -1.0, 1.0, 0.5, 2.0, 4.0, 0.1, 0.2, 1.0, 0.25, -inf]
assert len(sx) == len(sy) == 48
x = rng.uniform(-20, 20, N)
y = rng.uniform(-4, 4, N)
x[:48], y[:48] = sx, sy
x[200:232] = rng.uniform(0.5, 2.0, 32)           # near 1: logs, pow
y[200:232] = rng.uniform(-8, 8, 32)
xf, yf = x.astype(np.float32), y.astype(np.float32)
# double inputs: the same values plus bits below float precision (where finite and nonzero)
jit = 1.0 + rng.uniform(-1e-9, 1e-9, N)
xd = np.where(np.isfinite(x) & (x != 0), x * jit, x)
yd = np.where(np.isfinite(y) & (np.arange(N) >= 48), y * jit[::-1], y)
xd[10:13] = [1e-200, -1e-300, 5e-324]        # tiny and subnormal doubles
xd[19:21] = [1e300, -1e300]
for name, arr in dict(x=xf, y=yf, xd=xd, yd=yd).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))
