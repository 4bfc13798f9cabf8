#!/usr/bin/env python3
"""NumPy model of bulk_copy_forms: python3 model.py OUTDIR writes OUTDIR/raw.bin and OUTDIR/st.bin."""
import os
import sys
import numpy as np

B, NT, BUF = 3, 3, 8192
M = 0xFFFFFFFF
LD_DST = [0, 4096, 4112, 6128, 6176, 7200, 7280, 7776, 7808, 8064]
LD_SRC = [4080, 4064, 2064, 2016, 992, 912, 416, 384, 128, 0]
LD_SIZE = [4096, 16, 2000, 48, 1024, 80, 496, 32, 256, 128]
here = os.path.dirname(os.path.abspath(__file__))
src = np.fromfile(os.path.join(here, "inputs", "in.bin"), dtype=np.uint8).reshape(B, NT, BUF)

raw = np.zeros((B, NT, BUF // 4), np.uint32)
st = np.zeros((B, NT, BUF), np.uint8)
j = np.arange(BUF // 4, dtype=np.uint64)
for b in range(B):
    buf = ((0x5A5A0000 + j * 0x10001 + (b << 28)) & M).astype("<u4").view(np.uint8).copy()
    for i in range(NT):
        for d, s, n in zip(LD_DST, LD_SRC, LD_SIZE):
            buf[d:d + n] = src[b, i, s:s + n]
        w = buf.view("<u4").astype(np.uint64)
        raw[b, i] = w
        w = (w * 3 + (j ^ i)) & M
        buf = w.astype("<u4").view(np.uint8).copy()
        st[b, i] = buf                           # the 10 stores cover all 8192 bytes
os.makedirs(sys.argv[1], exist_ok=True)
raw.astype("<u4").tofile(os.path.join(sys.argv[1], "raw.bin"))
st.tofile(os.path.join(sys.argv[1], "st.bin"))
