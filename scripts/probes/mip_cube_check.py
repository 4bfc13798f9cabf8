#!/usr/bin/env python3
"""Runs the sets of scripts/probes/mip_cube_probe.cu (and, with --extra, of mip_extra_probe.cu) through ptxrun and counts the results that
differ from the GPU's, or stop as `unsupported`.

    nvcc -arch=sm_90 -ptx scripts/probes/mip_cube_probe.cu -o probe.ptx
    scripts/probes/mip_cube_check.py PROBE_OUT probe.ptx [--ptxrun target/release/ptxrun]
        [--extra PROBE2_OUT probe2.ptx]

PROBE_OUT holds what the probe wrote on the GPU. Each set is one launch: the probe's inputs and
texels are the launch's buffers (read from PROBE_OUT), its texture the probe's sampler. A set
whose sampler ptxrun refuses is listed with the reason. Table: docs/launch/textures.md.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
from setrun import table_row, write_launch

CUBE = ("_Z5kcubeyPK6float4Pfi", "cube_dirs.f32x4", 16)
LOD2 = ("_Z5klod2yPK6float4Pfi", "lod_sweep.f32x4", 16)
LOD1 = ("_Z5klod1yPK6float4Pfi", "lod_sweep.f32x4", 16)
TRI = ("_Z5klod2yPK6float4Pfi", "tri_coords.f32x4", 16)
TRI4 = ("_Z7klod2_4yPK6float4PS_i", "tri_coords.f32x4", 16)


X_CUBE = ("_Z5kcubeyPK6float4Pfi", "d.f32x4", 16)
X_TEX2 = ("_Z2k2yPK6float4Pfi", "c.f32x4", 16)
X_LOD2 = ("_Z5klod2yPK6float4Pfi", "c.f32x4", 16)


def cube(texels, filt, address, normalized=True):
    return dict(texels=texels, type="f32", channels=1, dims=[16, 16], cubemap=True, filter=filt,
                address=address, normalized=normalized)


def mip(texels, filt, mfilt, bias=0.0, lo=0.0, hi=6.0, ty="f32", ch=1, dims=(64, 32), levels=7, read="element"):
    return dict(texels=texels, type=ty, channels=ch, dims=list(dims), levels=levels, filter=filt,
                mipmap_filter=mfilt, lod_bias=bias, min_lod=lo, max_lod=hi, normalized=True, read=read)


def lod_levels(dims, levels, value=lambda l: l):
    """Texels of a mipmapped f32 texture whose level l holds `value(l)` everywhere."""
    out = []
    for lv in range(levels):
        n = int(np.prod([max(1, d >> lv) for d in dims]))
        out.append(np.full(n, value(lv), np.float32))
    return np.concatenate(out)


SETS = [
    ("cube_point_clamp", CUBE, cube("ids", "point", "clamp")),
    ("cube_point_wrap", CUBE, cube("ids", "point", "wrap")),
    ("cube_point_unnorm", CUBE, cube("ids", "point", "clamp", normalized=False)),
    ("cube_linear_clamp", CUBE, cube("cube_ints.f32", "linear", "clamp")),
    ("cube_linear_wrap", CUBE, cube("cube_ints.f32", "linear", "wrap")),
    ("cube_linear_rnd", CUBE, cube("cube_rnd.f32", "linear", "clamp")),
    ("lod_cfg0", LOD2, mip("levels2d", "point", "point")),
    ("lod_cfg1", LOD2, mip("levels2d", "point", "linear")),
    ("lod_cfg2", LOD2, mip("levels2d", "point", "linear", 0.3, 1.25, 4.5)),
    ("lod_cfg4", LOD2, mip("levels2d", "point", "point", -0.7)),
    ("lod_cfg5", LOD2, mip("levels2d", "point", "linear", hi=0.0)),
    ("lod_cfg6", LOD2, mip("levels2d", "point", "linear", hi=20.0)),
    ("lod_cfg7", LOD2, mip("levels2d", "point", "point", 0.3, 1.25, 4.5)),
    ("lod1d_cfg1", LOD1, mip("levels1d", "point", "linear", hi=8.0, dims=(256,), levels=9)),
    ("tri_point_mipl", TRI, mip("mip_rnd.f32", "point", "linear")),
    ("tri_lin_mipp", TRI, mip("mip_rnd.f32", "linear", "point")),
    ("tri_lin_mipl", TRI, mip("mip_rnd.f32", "linear", "linear")),
    ("tri_u8_point_mipl", TRI4, mip("mip_u8x4.u8", "point", "linear", ty="u8", ch=4, dims=(64, 64),
                                    read="normalized-float")),
    ("tri_u8_lin_mipl", TRI4, mip("mip_u8x4.u8", "linear", "linear", ty="u8", ch=4, dims=(64, 64),
                                  read="normalized-float")),
]


def cube_refused(d):
    """The directions ptxrun refuses (exec/texcube.rs): a component infinite, NaN, subnormal or of
    magnitude 2^126 or more, or one ulp below the largest magnitude."""
    a = np.abs(d[:, :3])
    bits = a.view(np.uint32).astype(np.int64)
    top = bits.max(1, keepdims=True)
    bad = ~np.isfinite(d[:, :3]).all(1) | ((a > 0) & (a < np.float32(2.0 ** -126))).any(1)
    bad |= (a >= np.float32(2.0 ** 126)).any(1) | ((bits == top - 1) & (top > 0)).any(1)
    return bad


EXTRA = [
    ("cube_mirror_p", X_CUBE, cube("ids", "point", "mirror")),
    ("cube_border_p", X_CUBE, dict(cube("ids", "point", "border"), border=[-7.5, 0.0, 0.0, 0.0])),
    ("cube_mirror_l", X_CUBE, cube("ids", "linear", "mirror")),
    ("cube_border_l", X_CUBE, dict(cube("ids", "linear", "border"), border=[-7.5, 0.0, 0.0, 0.0])),
    ("plain_on_mip_p", X_TEX2, mip("levels2d", "point", "point")),
    ("plain_on_mip_l", X_TEX2, mip("levels2d", "point", "linear")),
    ("plain_on_mip_bias", X_TEX2, mip("levels2d", "point", "linear", 2.3)),
    ("plain_on_mip_min", X_TEX2, mip("levels2d", "point", "linear", lo=1.5)),
    ("level_on_plain_p", X_LOD2, dict(texels="ids2d", type="f32", channels=1, dims=[64, 32], normalized=True)),
    ("level_on_plain_l", X_LOD2, dict(texels="ids2d", type="f32", channels=1, dims=[64, 32], normalized=True,
                                      filter="linear")),
]


def launch(work, probe, ptx, name, kernel, tex, keep=None):
    entry, inputs, in_size = kernel
    inputs = os.path.join(probe, inputs)
    if keep is not None:
        kept = os.path.join(work, name + ".in")
        np.fromfile(inputs, np.float32).reshape(-1, 4)[keep].tofile(kept)
        inputs = kept
    n = os.path.getsize(inputs) // in_size
    texels = tex["texels"]
    if texels in ("ids", "ids2d"):
        path = os.path.join(work, texels + ".f32")
        np.arange(6 * 256 if texels == "ids" else 64 * 32, dtype=np.float32).tofile(path)
    elif texels.startswith("levels"):
        dims, levels = ((256,), 9) if texels == "levels1d" else ((64, 32), 7)
        path = os.path.join(work, texels + ".f32")
        lod_levels(dims, levels).tofile(path)
    else:
        path = os.path.join(probe, texels)
    out_ch = 4 if kernel is TRI4 else 1
    settings = {k: v for k, v in tex.items() if k != "texels"}
    return write_launch(work, ptx, name, entry, n, path, settings, inputs, in_size, n * out_ch)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("probe")
    ap.add_argument("ptx")
    ap.add_argument("--ptxrun", default="target/release/ptxrun")
    ap.add_argument("--only", help="run the sets whose name contains this")
    ap.add_argument("--extra", nargs=2, metavar=("PROBE2_OUT", "PTX2"), help="also the sets of mip_extra_probe.cu")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="mipcube")
    runs = [(s, os.path.abspath(a.probe), os.path.abspath(a.ptx)) for s in SETS]
    if a.extra:
        runs += [(s, os.path.abspath(a.extra[0]), os.path.abspath(a.extra[1])) for s in EXTRA]
    print(f"| set | results | differ | note |\n|---|---|---|---|")
    for (name, kernel, tex), probe, ptx in runs:
        if a.only and a.only not in name:
            continue
        keep, note = None, ""
        gpu = np.fromfile(os.path.join(probe, name + (".f32x4" if kernel is TRI4 else ".f32")), np.uint32)
        if kernel in (CUBE, X_CUBE):
            refused = cube_refused(np.fromfile(os.path.join(probe, kernel[1]), np.float32).reshape(-1, 4))
            keep = ~refused
            gpu = gpu[keep]
            note = f"{int(refused.sum())} refused directions left out"
        lf = launch(work, probe, ptx, name, kernel, tex, keep)
        print(table_row(a.ptxrun, lf, [os.path.dirname(ptx), probe], name, gpu, note))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
