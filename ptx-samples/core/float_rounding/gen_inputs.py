#!/usr/bin/env python3
"""Deterministic inputs for float_rounding (numpy default_rng, seed 202). Writes inputs/*.bin (raw little-endian).
Rows 0..143: every pair of 12 fp32/fp64 specials; 144..191: halfway/near-halfway rounding cases;
192..255: random sign, mantissa and exponent over (almost) the whole range, subnormals included."""
import os
import numpy as np

N = 256
rng = np.random.default_rng(202)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)

def f32(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)

def f64(bits):
    return np.array(bits, dtype=np.uint64).view(np.float64)

s32 = f32([0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC12345, 0xFF800001,   # +0 -0 +inf -inf qNaN(payload) -sNaN
           0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0x3F800001, 0xC0400000])  # min sub, -max sub, FLT_MIN, FLT_MAX, 1+ulp, -3
s64 = f64([0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
           0x7FF8000000012345, 0xFFF0000000000001, 0x0000000000000001, 0x800FFFFFFFFFFFFF,
           0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000001, 0xC008000000000000])

def rand32(k):
    sign = rng.integers(0, 2, k, dtype=np.uint32) << 31
    exp = rng.integers(0, 255, k, dtype=np.uint32) << 23            # 0 (subnormal) .. 254, no inf/nan
    man = rng.integers(0, 1 << 23, k, dtype=np.uint32)
    return (sign | exp | man).view(np.float32)

def rand64(k):
    sign = rng.integers(0, 2, k, dtype=np.uint64) << np.uint64(63)
    exp = rng.integers(0, 2047, k, dtype=np.uint64) << np.uint64(52)
    man = rng.integers(0, 1 << 52, k, dtype=np.uint64)
    return (sign | exp | man).view(np.float64)

a = np.empty(N, np.float32); b = np.empty(N, np.float32); c = np.empty(N, np.float32)
x = np.empty(N, np.float64); y = np.empty(N, np.float64); z = np.empty(N, np.float64)
ii, jj = np.meshgrid(np.arange(12), np.arange(12), indexing="ij")
a[:144] = s32[ii.ravel()]; b[:144] = s32[jj.ravel()]
x[:144] = s64[ii.ravel()]; y[:144] = s64[jj.ravel()]
c[:144] = s32[(ii.ravel() * 5 + jj.ravel()) % 12]
z[:144] = s64[(ii.ravel() * 5 + jj.ravel()) % 12]

# halfway cases: 1 + k ulp plus/minus half an ulp (exact ties), a tiny third operand for fma sticky bits
k = np.arange(48)
a[144:192] = (np.float32(1.0) + k.astype(np.float32) * np.float32(2.0**-23)) * np.where(k % 2, -1, 1).astype(np.float32)
b[144:192] = np.float32(2.0**-24) * np.where(k % 3 == 0, 1.0, np.where(k % 3 == 1, 3.0, 0.75)).astype(np.float32)
c[144:192] = np.float32(2.0**-60) * np.where(k % 2, 1, -1).astype(np.float32)
x[144:192] = (1.0 + k * 2.0**-52) * np.where(k % 2, -1.0, 1.0)
y[144:192] = 2.0**-53 * np.where(k % 3 == 0, 1.0, np.where(k % 3 == 1, 3.0, 0.75))
z[144:192] = 2.0**-200 * np.where(k % 2, 1.0, -1.0)
# near-overflow / near-underflow products and quotients
a[184:192] = f32([0x7F000000, 0x00400000, 0x7F7FFFFF, 0x0000000F, 0x5F800000, 0x1F800000, 0x3F7FFFFF, 0x00FFFFFF])
b[184:192] = f32([0x40000000, 0x3F000000, 0x3F800001, 0x3E800000, 0x5F800000, 0x1F800000, 0x3F7FFFFF, 0x3F000001])
a[192:] = rand32(64); b[192:] = rand32(64); c[192:] = rand32(64)
x[192:] = rand64(64); y[192:] = rand64(64); z[192:] = rand64(64)

for name, arr in dict(a=a, b=b, c=c, da=x, db=y, dc=z).items():
    arr.tofile(os.path.join(here, "inputs", f"{name}.bin"))   # numpy's native order is little-endian on x86/arm
