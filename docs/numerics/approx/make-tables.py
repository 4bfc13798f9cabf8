#!/usr/bin/env python3
"""Turns the H100 measurements of tables.py / probe-grids.py (and the campaign's raw 16-bit results) into the
tables src/exec/sfu.rs embeds (src/exec/sfu/NAME.zz).

  make-tables.py MEASURED_DIR CAMPAIGN_DIR

File format (zlib-compressed): u32 count, u8 kind, i32 offset, u32 first value, then
  kind 2: the differences between consecutive values, minus `offset`, as 2-bit fields, 4 per byte (low first)
  kind 4: every value as u32 (little-endian), `first` repeated as the first one
  kind 3: (f32 values that vary smoothly but over many binades) the second value as u32, then for every later
          value a 2-bit code of its difference from the prediction 2*v[i-1] - v[i-2] (computed in f64, rounded
          to f32 to nearest even, compared as raw bits): 0 -> -1, 1 -> 0, 2 -> +1, 3 -> escape; then the
          number of escapes (u32) and each escaped difference (i32), in order
"""
import os
import struct
import sys
import zlib

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "src", "exec", "sfu")


def load_npz(path):
    z = np.load(path)
    return np.concatenate([z["first"], z["first"] + np.cumsum(z["diff"].astype(np.int64))]).astype(np.uint32)


def write(name, values, packed=True):
    values = np.asarray(values, dtype=np.uint32)
    d = np.diff(values.astype(np.int64))
    if packed and d.size and d.max() - d.min() <= 3:
        offset = int(d.min())
        fields = (d - offset).astype(np.uint8)
        fields = np.concatenate([fields, np.zeros((-fields.size) % 4, np.uint8)]).reshape(-1, 4)
        payload = (fields[:, 0] | fields[:, 1] << 2 | fields[:, 2] << 4 | fields[:, 3] << 6).astype(np.uint8).tobytes()
        kind = 2
    else:
        offset, kind, payload = 0, 4, values.astype("<u4").tobytes()
    head = struct.pack("<IBiI", values.size, kind, offset, int(values[0]))
    data = zlib.compress(head + payload, 9)
    with open(os.path.join(OUT, name + ".zz"), "wb") as f:
        f.write(data)
    print(f"{name}: {values.size} values, kind {kind}, {len(data)} bytes")


def write_smooth(name, values, out=None):
    v = np.asarray(values, dtype=np.uint32)
    f = v.view(np.float32).astype(np.float64)
    pred = (2 * f[1:-1] - f[:-2]).astype(np.float32).view(np.uint32).astype(np.int64)
    r = v[2:].astype(np.int64) - pred
    codes = np.where(np.abs(r) <= 1, r + 1, 3).astype(np.uint8)
    esc = r[codes == 3].astype("<i4")
    codes = np.concatenate([codes, np.zeros((-codes.size) % 4, np.uint8)]).reshape(-1, 4)
    packed = (codes[:, 0] | codes[:, 1] << 2 | codes[:, 2] << 4 | codes[:, 3] << 6).astype(np.uint8).tobytes()
    head = struct.pack("<IBiII", v.size, 3, 0, int(v[0]), int(v[1]))
    data = zlib.compress(head + packed + struct.pack("<I", esc.size) + esc.tobytes(), 9)
    with open(os.path.join(out or OUT, name + ".zz"), "wb") as f:
        f.write(data)
    print(f"{name}: {v.size} values, kind 3, {esc.size} escapes, {len(data)} bytes")


def main(measured, campaign):
    os.makedirs(OUT, exist_ok=True)
    write("rcp", load_npz(os.path.join(measured, "rcp.npz")))  # MUFU.RCP on [1, 2)
    write("rsq", load_npz(os.path.join(measured, "rsqrt.npz")))  # MUFU.RSQ on [1, 4)
    write("sqrt", load_npz(os.path.join(measured, "sqrt.npz")))  # MUFU.SQRT on [1, 4)
    write("ex2p", load_npz(os.path.join(measured, "ex2_pos.npz")))  # MUFU.EX2 on k * 2^-23, k < 2^23
    write("ex2n", load_npz(os.path.join(measured, "ex2_neg.npz")))  # MUFU.EX2 on -k * 2^-23
    write("rcp64", load_npz(os.path.join(measured, "rcp64.npz")))  # MUFU.RCP64H: high words of [1, 2)
    write("rsq64", load_npz(os.path.join(measured, "rsq64.npz")))  # MUFU.RSQ64H: high words of [1, 4)
    lg2 = load_npz(os.path.join(measured, "lg2.npz"))  # MUFU.LG2 on [0.5, 1) then [1, 2)
    write_smooth("lg2lo", lg2[:1 << 23])
    write_smooth("lg2hi", lg2[1 << 23:])
    for n, name in [(13, "ex2_f16"), (14, "ex2_bf16"), (15, "tanh_f16"), (16, "tanh_bf16")]:
        raw = np.fromfile(os.path.join(campaign, f"{n:02}.bin"), dtype=np.uint32)
        assert raw.size == 65536 and raw.max() < 65536
        write(name, raw, packed=False)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
