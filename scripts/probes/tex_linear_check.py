#!/usr/bin/env python3
"""Runs the sets of scripts/probes/tex_linear_probe.cu through ptxrun and counts the results that
differ from the GPU's, or stop as `unsupported`.

    nvcc -arch=sm_90 -ptx scripts/probes/tex_linear_probe.cu -o probe.ptx
    scripts/probes/tex_linear_check.py D1,D2,D3,D4 probe.ptx [--ptxrun target/release/ptxrun] [--only S]

D1..D4 hold what the probe wrote on the GPU in its four rounds (NAME.in, NAME.out, NAME.texels;
`./probe`, `./probe round2`, `round3`, `round4`); a set whose files are in none is skipped. Each set is one
launch: the probe's coordinates and texels are the launch's buffers, its texture the probe's
sampler, rebuilt here as the probe builds it. Table: docs/launch/textures.md.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
from setrun import table_row, write_launch

# kernel: (entry, bytes per coordinate, results per sample)
K1 = ("_Z2k1yPKfP6float4i", 4, 4)
K1S = ("_Z3k1syPKfPfi", 4, 1)
K2 = ("_Z2k2yPK6float2P6float4i", 8, 4)
K2S = ("_Z3k2syPK6float2Pfi", 8, 1)
K3 = ("_Z2k3yPK6float4PS_i", 16, 4)
K3S = ("_Z3k3syPK6float4Pfi", 16, 1)


def ramp1(w):
    return np.arange(w, dtype=np.float32)


def ramp2(w, h):
    j, i = np.mgrid[0:h, 0:w]
    return np.stack([i, j], -1).astype(np.float32)


def onehot3(z_odd):
    z, y, x = np.mgrid[0:8, 0:8, 0:8]
    t = np.zeros((8, 8, 8, 4), np.float32)
    c = (x & 1) + 2 * (y & 1)
    for ch in range(4):
        t[..., ch] = ((c == ch) & ((z & 1) == z_odd)).astype(np.float32)
    return t


def border1():
    i = np.arange(16)
    return np.stack([i % 2 == 0, i % 2 == 1, np.ones(16), np.zeros(16)], -1).astype(np.float32)


def border2(which):
    y, x = np.mgrid[0:16, 0:16]
    t = np.zeros((16, 16, 4), np.float32)
    if which == "a":
        for ch in range(4):
            t[..., ch] = ((x & 1) + 2 * (y & 1) == ch)
    else:
        t[..., 2] = 1
    return t


def s8_pairs():
    p = np.arange(65536)
    return np.stack([p & 255, p >> 8], -1).astype(np.uint8).reshape(-1)


def tex(texels, ty, ch, dims, address="clamp", normalized=False, read="element", border=None, filt="linear"):
    d = dict(texels=texels, type=ty, channels=ch, dims=dims, filter=filt, address=address,
             normalized=normalized, read=read)
    if border is not None:
        d["border"] = border
    return d


BC = [0.0, 0.0, 0.0, 1.0]
BCR = [0.25, -0.5, 0.75, 3.0]
SETS = []
for w in (3, 7, 100, 255, 257, 1000, 1920, 4095, 5000, 65535):
    for mode in ("clamp", "wrap", "mirror"):
        SETS.append((f"np_{mode}_{w}", K1S, tex(ramp1(w), "f32", 1, [w], mode, True)))
SETS += [
    ("np2_clamp_1920x1080", K2, tex(ramp2(1920, 1080), "f32", 2, [1920, 1080], normalized=True)),
    ("np2_clamp_7x5", K2, tex(ramp2(7, 5), "f32", 2, [7, 5], normalized=True)),
    ("l3_onehot_a", K3, tex(onehot3(0), "f32", 4, [8, 8, 8])),
    ("l3_onehot_b", K3, tex(onehot3(1), "f32", 4, [8, 8, 8])),
    ("l3_rnd", K3, tex("l3_rnd.texels", "f32", 4, [8, 8, 8])),
    ("l3_u8", K3S, tex("l3_u8.texels", "u8", 1, [32, 32, 32], normalized=True, read="normalized-float")),
    ("b1_onehot", K1, tex(border1(), "f32", 4, [16], "border", border=BC)),
    ("b1_rnd", K1, tex("b1_rnd.texels", "f32", 4, [16], "border", border=BCR)),
    ("b1_onehot_norm", K1, tex(border1(), "f32", 4, [16], "border", True, border=BC)),
    ("b2_onehot_a", K2, tex(border2("a"), "f32", 4, [16, 16], "border", border=[0.0] * 4)),
    ("b2_onehot_b", K2, tex(border2("b"), "f32", 4, [16, 16], "border", border=BC)),
    ("b2_rnd", K2, tex("b2_rnd.texels", "f32", 4, [16, 16], "border", border=BCR)),
    ("b2_u8", K2, tex("b2_u8.texels", "u8", 4, [16, 16], "border", read="normalized-float", border=BCR)),
    ("h1", K1S, tex("h1.texels", "f16", 1, [65536])),
    ("h2", K2S, tex("h1.texels", "f16", 1, [256, 256])),
    ("s8", K1S, tex(s8_pairs(), "i8", 1, [131072], read="normalized-float")),
    ("u8", K1S, tex(s8_pairs(), "u8", 1, [131072], read="normalized-float")),
    ("s8_2d", K2S, tex(s8_pairs()[:65536], "i8", 1, [256, 256], read="normalized-float")),
]


def split_ramp(w):
    i = np.arange(w)
    return np.stack([i & 4095, i >> 12], -1).astype(np.float32)


def onehot3d(nx, ny, nz, z_odd):
    z, y, x = np.mgrid[0:nz, 0:ny, 0:nx]
    t = np.zeros((nz, ny, nx, 4), np.float32)
    for ch in range(4):
        t[..., ch] = (((x & 1) + 2 * (y & 1)) == ch) & ((z & 1) == z_odd)
    return t


# Round two (tex_linear_probe round2).
for w in (4096, 5001, 6000, 8191, 8192, 8193, 12000, 16383, 16384, 16385, 32767, 32768, 32769, 65536, 100000,
          131071, 131072):
    for mode in ("clamp", "wrap"):
        SETS.append((f"n2_{mode}_{w}", K1, tex(split_ramp(w), "f32", 2, [w], mode, True)))
for w in (3, 7, 100, 1000, 1920, 4095, 5000, 6000, 8193, 65535, 65536, 131071):
    SETS.append((f"p2_clamp_{w}", K1, tex(split_ramp(w), "f32", 2, [w], "clamp", True, filt="point")))
for w in (7, 1000):
    for mode in ("clamp", "wrap"):
        SETS.append((f"far_{mode}_{w}", K1, tex(split_ramp(w), "f32", 2, [w], mode, True)))
SETS += [
    ("b1_border_clamp", K1, tex(border1(), "f32", 4, [16], ["border", "clamp", "border"], border=BC)),
    ("b1_clamp_border", K1, tex(border1(), "f32", 4, [16], ["clamp", "border", "clamp"], border=BC)),
    ("h3", K1S, tex("h3.texels", "f16", 1, [1036])),
    ("z3", K3S, tex("z3.texels", "f32", 1, [4, 4, 4])),
]
# Round three.
for nx, dims, modes in ((8, [8, 8, 8], ("wrap", "mirror", "border", "clamp")), (7, [7, 5, 3], ("wrap", "clamp"))):
    for mode in modes:
        bc = [0.0] * 4 if mode == "border" else None
        for part, z_odd in (("a", 0), ("b", 1)):
            SETS.append((f"m3_{mode}_{nx}_{part}", K3, tex(onehot3d(*dims, z_odd), "f32", 4, dims, mode, True, border=bc)))
        if mode == "border":
            ones = np.zeros((8, 8, 8, 4), np.float32)
            ones[..., 2] = 1
            SETS.append((f"m3_border_{nx}_ones", K3, tex(ones, "f32", 4, dims, mode, True, border=BC)))
# Round four.
for dims in ([3, 9000], [9000, 3], [100, 20000], [3, 3, 9000], [9000, 3, 3]):
    grid = np.stack(np.meshgrid(*[np.arange(d) for d in dims], indexing="ij"), -1).astype(np.float32)
    ramp = np.zeros(tuple(reversed(dims)) + (4,), np.float32)
    ramp[..., :len(dims)] = grid.transpose(tuple(reversed(range(len(dims)))) + (len(dims),))
    SETS.append(("r4_" + "x".join(map(str, dims)), K3 if len(dims) == 3 else K2, tex(ramp, "f32", 4, dims, "clamp", True)))
sub = np.zeros((16, 4), np.float32)
sub[:, 0] = np.arange(1, 17)
for filt in ("point", "linear"):
    for norm in ("unnorm", "norm"):
        SETS.append((f"r4_sub_{filt}_{norm}", K1, tex(sub, "f32", 4, [16], "border", norm == "norm",
                                                      border=[-5.0, 0.0, 0.0, 0.0], filt=filt)))
SETS.append(("m3_u8wrap", K3S, tex("m3_u8wrap.texels", "u8", 1, [32, 32, 32], "wrap", True, read="normalized-float")))


def launch(work, probe, ptx, name, kernel, t):
    entry, in_size, per = kernel
    inputs = os.path.join(probe, name + ".in")
    n = os.path.getsize(inputs) // in_size
    texels = t["texels"]
    if isinstance(texels, np.ndarray):
        path = os.path.join(work, name + ".texels")
        texels.tofile(path)
    else:
        path = os.path.join(probe, texels)
    tex = {k: v for k, v in t.items() if k != "texels"}
    return write_launch(work, ptx, name, entry, n, path, tex, inputs, in_size, n * per)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probe", help="the probe's output folders, comma-separated (rounds one to three)")
    ap.add_argument("ptx")
    ap.add_argument("--ptxrun", default="target/release/ptxrun")
    ap.add_argument("--only", help="run the sets whose name contains this")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="texlin")
    probes, ptx = [os.path.abspath(p) for p in a.probe.split(",")], os.path.abspath(a.ptx)
    print("| set | results | differ | note |\n|---|---|---|---|")
    for name, kernel, t in SETS:
        if a.only and a.only not in name:
            continue
        found = [p for p in probes if os.path.exists(os.path.join(p, name + ".out"))]
        if not found:
            continue
        probe = found[0]
        gpu = np.fromfile(os.path.join(probe, name + ".out"), np.uint32)
        lf = launch(work, probe, ptx, name, kernel, t)
        print(table_row(a.ptxrun, lf, [os.path.dirname(ptx), probe, work], name, gpu))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
