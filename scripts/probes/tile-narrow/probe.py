"""Tile-mode tensor copies whose box rows are narrower than the swizzle span (16 to 64 bytes under
32B/64B/128B swizzles), over the im2col probe's kernels and harness (scripts/probes/im2col).

  PROBE_DIR=scripts/probes/tile-narrow TILE_NARROW=loads  python3 scripts/probes/im2col/gpu.py OUT.npz
  PROBE_DIR=scripts/probes/tile-narrow TILE_NARROW=loads  python3 scripts/probes/im2col/compare.py OUT.npz
  (TILE_NARROW=stores for the stores.) Results of an H100: docs/launch/tile-narrow-{loads,stores}-h100.npz,
  described in docs/launch/tile-narrow-rows.md.
"""
import importlib.util
import os

import numpy as np

_spec = importlib.util.spec_from_file_location(
    "im2col_probe", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "im2col", "probe.py"))
_base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_base)
globals().update({k: v for k, v in vars(_base).items() if not k.startswith("__")})

STORES = os.environ.get("TILE_NARROW", "loads") == "stores"


def tile_map(ty, dims, box, swz, oob="zero"):
    """A tiled map in the im2col probe's case format (`tiled_box`; channels x pixels = the box)."""
    m = _base.mk_map(ty, dims, [0, 0], [0, 0], box[0], int(np.prod(box[1:])), swz=swz, oob=oob)
    m["tiled_box"] = list(box)
    return m


def ptx():
    st = _base.store_kernel(4).replace("st4(", "st4t(").replace(".im2col_no_offs", ".tile")
    return _base.ptx() + st


def cases():
    out = []
    if STORES:
        combos = [("f32", "128B", [32, 16, 8, 4]), ("f32", "64B", [16, 8, 4]), ("f32", "32B", [8, 4]),
                  ("f16", "128B", [64, 32, 16]), ("u8", "64B", [64, 32, 16]), ("f32", "none", [16, 4])]
        places = [((0, 0, 0, 0), 0), (None, 0), ((0, 2, 1, 1), 256), ("end", 1024)]
    else:
        combos = [("f32", "128B", [32, 16, 8, 4]), ("f32", "64B", [16, 8, 4]), ("f32", "32B", [8, 4]),
                  ("f16", "128B", [64, 32, 16, 8]), ("f16", "64B", [32, 16, 8]), ("u8", "64B", [64, 32, 16]),
                  ("u8", "128B", [128, 64, 16]), ("f32", "none", [32, 16, 8, 4])]
        places = [((0, 0, 0, 0), 0), (None, 0), ((0, 2, 1, 1), 256), ("neg", 0), ("end", 1024)]
    for ty, swz, widths in combos:
        es = _base.TYPES[ty][1]
        d0 = 128 // es
        named = {None: (16 // es, 1, 1, 0), "neg": (-(16 // es), -1, 0, 0), "end": (d0 - 16 // es, 7, 3, 1)}
        for w in widths:
            for c, base in places:
                coords = named.get(c, c) if not isinstance(c, tuple) else c
                out.append({"kernel": "st4t" if STORES else "tl4", "map": tile_map(ty, [d0, 8, 4, 2], [w, 4, 2, 1], swz),
                            "coords": list(coords), "offs": [], "base": base})
    return out


def encode_tests():
    return []
