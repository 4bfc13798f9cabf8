#!/usr/bin/env python3
"""Deterministic inputs for bulk_reduce (numpy default_rng, seed 7109). 4 blocks, segments of 128 elements.
src32 (4 x 12 x 128 u32), src64 (4 x 9 x 128 u64), src16 (4 x 6 x 128 u16 bits) hold each block's shared data;
g32_init / g64_init / g16_init the initial global values. Constraints that make every result order-independent:
inc/dec bounds (segments 6, 7 of src32) are the same in every block; add.f32 data are multiples of 0.25 in
[-64, 64], add.f64 multiples of 2^-10 below 2^10, add.f16 integers in [-16, 16] (init [-100, 100]), add.bf16
integers in [-8, 8] (init [-64, 64]): every partial sum is exact; float min/max data are non-zero integers."""
import os
import numpy as np

B, N = 4, 128
rng = np.random.default_rng(7109)
here = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(here, "inputs"), exist_ok=True)


def u32(shape):
    return rng.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)


def u64(shape):
    return rng.integers(0, 2**63, shape, dtype=np.uint64) * 2 + rng.integers(0, 2, shape, dtype=np.uint64)


def nonzero_ints(lo, hi, shape):
    v = rng.integers(lo, hi, shape)
    return np.where(v >= 0, v + 1, v)          # lo..-1, 1..hi


def bf16_bits(x):
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)   # exact for small integers


def f16_bits(x):
    return np.asarray(x, np.float16).view(np.uint16)


# ---- 32-bit: add.u32, add.s32, min.u32, max.u32, min.s32, max.s32, inc.u32, dec.u32, and, or, xor, add.f32
s32 = u32((B, 12, N))
s32[:, 6] = rng.integers(0, 21, N).astype(np.uint32)          # inc bounds, same for every block
s32[:, 7] = rng.integers(0, 21, N).astype(np.uint32)          # dec bounds, same for every block
s32[:, 11] = (rng.integers(-256, 257, (B, N)) * 0.25).astype(np.float32).view(np.uint32)
g32 = u32((12, N))
g32[2] = 0xFFFFFFFF; g32[2, :8] = u32(8)                      # min.u32: mostly the identity
g32[3] = 0; g32[3, :8] = u32(8)
g32[6] = rng.integers(0, 26, N).astype(np.uint32)             # inc/dec start values (some above the bound)
g32[7] = rng.integers(0, 26, N).astype(np.uint32)
g32[11] = (rng.integers(-256, 257, N) * 0.25).astype(np.float32).view(np.uint32)

# ---- 64-bit: add.u64, min.u64, max.u64, min.s64, max.s64, and, or, xor, add.f64
s64 = u64((B, 9, N))
s64[:, 8] = (rng.integers(-2**20, 2**20, (B, N)) * 2.0**-10).view(np.uint64)
g64 = u64((9, N))
g64[8] = (rng.integers(-2**20, 2**20, N) * 2.0**-10).view(np.uint64)

# ---- 16-bit: add.noftz.f16, add.noftz.bf16, min.f16, max.f16, min.bf16, max.bf16
s16 = np.zeros((B, 6, N), np.uint16)
s16[:, 0] = f16_bits(rng.integers(-16, 17, (B, N)))
s16[:, 1] = bf16_bits(rng.integers(-8, 9, (B, N)))
s16[:, 2] = f16_bits(nonzero_ints(-1000, 1000, (B, N)))
s16[:, 3] = f16_bits(nonzero_ints(-1000, 1000, (B, N)))
s16[:, 4] = bf16_bits(nonzero_ints(-200, 200, (B, N)))
s16[:, 5] = bf16_bits(nonzero_ints(-200, 200, (B, N)))
g16 = np.zeros((6, N), np.uint16)
g16[0] = f16_bits(rng.integers(-100, 101, N))
g16[1] = bf16_bits(rng.integers(-64, 65, N))
g16[2] = f16_bits(nonzero_ints(-1000, 1000, N))
g16[3] = f16_bits(nonzero_ints(-1000, 1000, N))
g16[4] = bf16_bits(nonzero_ints(-200, 200, N))
g16[5] = bf16_bits(nonzero_ints(-200, 200, N))

for name, arr in dict(src32=s32, src64=s64, src16=s16, g32_init=g32, g64_init=g64, g16_init=g16).items():
    arr.astype(arr.dtype.newbyteorder("<")).tofile(os.path.join(here, "inputs", f"{name}.bin"))
