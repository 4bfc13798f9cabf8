#!/usr/bin/env python3
"""The remaining tensor-core forms against an H100 (see README.md beside this file): the sm_70
mma.m8n8k4 forms (f16, and bf16 which ptxas also takes; quad pairs, every layout), the sub-byte wmma
forms (.s4, .u4, .b1: fragment layouts and numerics), wmma .f16 with D and C of different types, wmma
.f64 and mma .f64 with .rz/.rm/.rp.

  remaining.py gpu OUT.npz [WARPS]      (GPU + CuPy) run every launch, write OUT.npz: digests per warp,
                                        raw outputs of the first warps, the layout experiments, SASS
                                        (WARPS per form, 2048 by default)
  remaining.py --dry OUT.npz [WARPS]    the same without a GPU (generation, ptxas check, packing)
  remaining.py cpu PTXRUN OUT.npz [WARPS]  the same launches in ptxrun, same format
  remaining.py compare GPU.npz CPU.npz  the tables of README.md
  remaining.py samples GPU.npz DIR DATE write the golden samples under DIR (ptx-samples/matrix)

Operands come from probe.py (beside this file): its splitmix64 generator and 11 regimes (warp w uses
regime w mod 11).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe as P  # noqa: E402

WARPS = 2048          # warps per numerics form
KEEP = 352            # raw D kept for the first KEEP warps of the wmma forms (32 per regime)
KEEP884 = 176         # and of the m8n8k4 forms (16 per regime)
KEEPSUB = 704         # and of the sub-byte forms (64 per regime)
WPC = 4               # warps per CTA
BITS = {"f16": 16, "bf16": 16, "f32": 32, "s32": 32, "f64": 64, "s4": 4, "u4": 4, "b1": 1}
NP = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
HDR = [".version 8.7", ".target sm_90a", ".address_size 64", ""]


def u64(x):
    return np.uint64(x)


def digests(words):
    """words (warps, W) uint32 -> one uint64 per warp: wrapping sum of splitmix(pos << 32 | word)."""
    pos = np.arange(words.shape[1], dtype=np.uint64) << u64(32)
    with np.errstate(over="ignore"):
        return P.splitmix(pos[None] | words.astype(np.uint64)).sum(axis=1, dtype=np.uint64)


# =====================================================================================================
# Part 1: mma.sync.aligned.m8n8k4.{row,col}.{row,col}.{f16,f32}.{f16,bf16}.{f16,bf16}.{f16,f32}
# =====================================================================================================
F884 = []
for _la in ("row", "col"):
    for _lb in ("row", "col"):
        for _d, _c in (("f16", "f16"), ("f32", "f16"), ("f32", "f32")):
            F884.append((_la, _lb, _d, "f16", _c))
# ptxas 13 also takes m8n8k4 .f32.bf16.bf16.f32 but emits no instruction for it (the first campaign ran
# it: D held the stack-pointer register, 0x00fffdc0); ptxrun stops on it as unsupported.
IN884, OUT884 = 16, 8


def op884(f):
    la, lb, d, ab, c = f
    return f"mma.sync.aligned.m8n8k4.{la}.{lb}.{d}.{ab}.{ab}.{c}"


def nregs884(t):
    return 8 if t == "f32" else 4


def ptx884():
    out = list(HDR)
    for fi, f in enumerate(F884):
        la, lb, d, ab, c = f
        nc, nd = nregs884(c), nregs884(d)
        out += [f".visible .entry m884_{fi}(.param .u64 inp, .param .u64 out)", "{",
                "  .reg .b32 %t<4>;", "  .reg .b64 %rd<6>;", "  .reg .b32 %r<32>;",
                "  ld.param.u64 %rd1, [inp];", "  ld.param.u64 %rd2, [out];",
                "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;",
                "  mov.u32 %t1, %ctaid.x;", "  mov.u32 %t2, %ntid.x;", "  mov.u32 %t3, %tid.x;",
                "  mad.lo.s32 %t1, %t1, %t2, %t3;",
                f"  mul.wide.u32 %rd3, %t1, {IN884 * 4};", "  add.s64 %rd3, %rd1, %rd3;",
                f"  mul.wide.u32 %rd4, %t1, {OUT884 * 4};", "  add.s64 %rd4, %rd2, %rd4;"]
        for i in range(4 + nc):
            out.append(f"  ld.global.b32 %r{i}, [%rd3+{4 * i}];")
        dst = [f"%r{16 + i}" for i in range(nd)]
        cs = [f"%r{4 + i}" for i in range(nc)]
        out.append(f"  {op884(f)} {{{', '.join(dst)}}}, {{%r0, %r1}}, {{%r2, %r3}}, {{{', '.join(cs)}}};")
        out += [f"  st.global.b32 [%rd4+{4 * i}], {r};" for i, r in enumerate(dst)]
        out += ["  ret;", "}", ""]
    return "\n".join(out)


# fragment layouts, PTX ISA 9.0 section 9.7.14.5.1 (quad pair q: lanes 4q..4q+3 low, 16+4q.. high)
def lane_of(q, hi, t):
    return 4 * q + t + 16 * hi


def a884(la, hi, t, i):
    return (t + 4 * hi, i) if la == "row" else (i + 4 * hi, t)


def b884(lb, hi, t, i):
    return (t, i + 4 * hi) if lb == "row" else (i, t + 4 * hi)


def c884(ct, hi, t, i):
    if ct == "f16":
        return (t + 4 * hi, i)
    return ((t & 1) + (i & 2) + 4 * hi, (i & 4) + (t & 2) + (i & 1))


def pack884(f, A, B, C):
    """Element matrices (W, 4 quad pairs, ...) -> registers (W, 32, IN884) uint32."""
    la, lb, d, ab, c = f
    W = A.shape[0]
    words = np.zeros((W, 32, IN884), dtype=np.uint64)
    for q in range(4):
        for hi in range(2):
            for t in range(4):
                L = lane_of(q, hi, t)
                for i in range(4):
                    r, k = a884(la, hi, t, i)
                    words[:, L, i // 2] |= A[:, q, r, k] << u64(16 * (i % 2))
                    k, n = b884(lb, hi, t, i)
                    words[:, L, 2 + i // 2] |= B[:, q, k, n] << u64(16 * (i % 2))
                for i in range(8):
                    r, n = c884(c, hi, t, i)
                    if c == "f16":
                        words[:, L, 4 + i // 2] |= C[:, q, r, n] << u64(16 * (i % 2))
                    else:
                        words[:, L, 4 + i] = C[:, q, r, n]
    return words.astype(np.uint32)


def operands884(fi, warps):
    la, lb, d, ab, c = F884[fi]
    A = np.zeros((warps, 4, 8, 4), np.uint64)
    B = np.zeros((warps, 4, 4, 8), np.uint64)
    C = np.zeros((warps, 4, 8, 8), np.uint64)
    for ri, regime in enumerate(P.REGIMES):
        sel = np.arange(ri, warps, len(P.REGIMES))
        w = len(sel)
        rng = P.Rng(88400 + fi * 100 + ri)
        A[sel] = P.elements(ab, rng, (w, 4, 8, 4), regime, "a")
        B[sel] = P.elements(ab, rng, (w, 4, 4, 8), regime, "b")
        C[sel] = P.elements(c, rng, (w, 4, 8, 8), regime, "c")
        if regime == "cancel":
            eb, mb, _ = P.FLOATS[ab]
            flip = rng.coin((w, 4, 8, 2), 0.3).astype(np.uint64)
            A[sel, :, :, 1::2] = (A[sel, :, :, 0::2] ^ u64(1 << (eb + mb))) ^ flip
            B[sel, :, 1::2, :] = B[sel, :, 0::2, :]
        if regime == "nans":
            A[sel] = P.with_nans(ab, rng, A[sel], 3)
            B[sel] = P.with_nans(ab, rng, B[sel], 2)
            C[sel] = np.where(rng.coin((w, 4, 8, 8), 0.2), P.with_nans(c, rng, C[sel], None), C[sel])
    return pack884(F884[fi], A, B, C)


def f16(v):
    return np.float16(v).view(np.uint16).astype(np.uint32)


def layout884_inputs():
    """Layout experiments: (form index, inputs (W, 32, IN884)).
    onehot: for each A position p = (lane, element) a warp with A = 1.0 there, B = f16(position + 1)
    (position = lane * 4 + element), C = 0; cid: A = B = 0, C = position + 1 (lane * 8 + element)."""
    cases = []
    for fi, f in enumerate(F884):
        if f[2] == "f32" and f[4] == "f32" and f[3] == "f16":
            x = np.zeros((128, 32, IN884), np.uint32)
            for p in range(128):
                L, e = p // 4, p % 4
                x[p, L, e // 2] = 0x3C00 << (16 * (e % 2))
            for L in range(32):
                for e in range(4):
                    x[:, L, 2 + e // 2] |= f16(L * 4 + e + 1) << (16 * (e % 2))
            cases.append(("onehot", fi, x))
    for fi, f in enumerate(F884):
        if f[0] == "row" and f[1] == "col" and f[3] == "f16":
            x = np.zeros((1, 32, IN884), np.uint32)
            for L in range(32):
                for i in range(8):
                    if f[4] == "f16":
                        x[0, L, 4 + i // 2] |= f16(L * 8 + i + 1) << (16 * (i % 2))
                    else:
                        x[0, L, 4 + i] = np.float32(L * 8 + i + 1).view(np.uint32)
            cases.append(("cid", fi, x))
    return cases


# =====================================================================================================
# Part 2: sub-byte wmma fragment layouts (loads with two strides, stores with two strides)
# =====================================================================================================
SUB_LOADS = []
for _frag, _lay, _k, _t in (("a", "row", 32, "s4"), ("a", "row", 32, "u4"), ("b", "col", 32, "s4"),
                            ("b", "col", 32, "u4"), ("a", "row", 128, "b1"), ("b", "col", 128, "b1"),
                            ("c", "row", 32, "s32"), ("c", "col", 32, "s32"), ("c", "row", 128, "s32"),
                            ("c", "col", 128, "s32")):
    for _pad in (False, True):
        SUB_LOADS.append((_frag, _lay, _k, _t, _pad))
# ptxas also takes .f32 accumulators at these shapes (appended: the first campaigns ran without them)
SUB_LOADS += [("c", lay, k, "f32", pad) for k in (32, 128) for lay in ("row", "col") for pad in (False, True)]
SUB_STORES = [(lay, k, pad, t) for t in ("s32", "f32") for lay in ("row", "col") for k in (32, 128)
              for pad in (False, True)]


def sub_dims(frag, k):
    return {"a": (8, k), "b": (k, 8), "c": (8, 8)}[frag]


def sub_stride(frag, lay, k, pad):
    r, c = sub_dims(frag, k)
    nat = c if lay == "row" else r
    return 2 * nat if pad else nat


def sub_nregs(frag):
    return 2 if frag == "c" else 1


def sub_layout_ptx():
    out = list(HDR)
    for ci, (frag, lay, k, t, pad) in enumerate(SUB_LOADS):
        nr = sub_nregs(frag)
        regs = ", ".join(f"%x{i}" for i in range(nr))
        out += [f".visible .entry subload{ci}(.param .u64 src, .param .u64 dst)", "{",
                f"  .reg .b32 %x<{nr}>;", "  .reg .b64 %rd<4>;", "  .reg .b32 %t<2>;",
                "  ld.param.u64 %rd1, [src];", "  ld.param.u64 %rd2, [dst];",
                "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;",
                f"  wmma.load.{frag}.sync.aligned.{lay}.m8n8k{k}.global.{t} {{{regs}}}, [%rd1], "
                f"{sub_stride(frag, lay, k, pad)};",
                "  mov.u32 %t1, %tid.x;", f"  mul.wide.u32 %rd3, %t1, {4 * nr};", "  add.s64 %rd2, %rd2, %rd3;"]
        out += [f"  st.global.b32 [%rd2+{4 * i}], %x{i};" for i in range(nr)]
        out += ["  ret;", "}", ""]
    for si, (lay, k, pad, t) in enumerate(SUB_STORES):
        out += [f".visible .entry substore{si}(.param .u64 dst)", "{",
                "  .reg .b32 %x<2>;", "  .reg .b64 %rd<4>;", "  .reg .b32 %t<3>;",
                "  ld.param.u64 %rd2, [dst];", "  cvta.to.global.u64 %rd2, %rd2;",
                "  mov.u32 %t1, %tid.x;", "  shl.b32 %t2, %t1, 8;",
                "  or.b32 %x0, %t2, 65536;", "  or.b32 %x1, %t2, 65537;",
                f"  wmma.store.d.sync.aligned.{lay}.m8n8k{k}.global.{t} [%rd2], {{%x0, %x1}}, "
                f"{sub_stride('c', lay, k, pad)};",
                "  ret;", "}", ""]
    return "\n".join(out)


def pack_bits(elems, bits):
    """Element values (1-D, memory order) -> bytes, element e at bit (e * bits) % 8 of byte e*bits//8."""
    e = elems.astype(np.uint64).ravel()
    if bits >= 8:
        return e.astype(NP[bits // 8]).view(np.uint8)
    per = 8 // bits
    e = e.reshape(-1, per)
    out = np.zeros(e.shape[0], np.uint64)
    for j in range(per):
        out |= (e[:, j] & u64((1 << bits) - 1)) << u64(j * bits)
    return out.astype(np.uint8)


def sub_load_inputs(ci):
    """Memory images, one per plane: element at memory position p holds plane bits of p."""
    frag, lay, k, t, pad = SUB_LOADS[ci]
    r, c = sub_dims(frag, k)
    lines = r if lay == "row" else c
    total = lines * sub_stride(frag, lay, k, pad)
    pos = np.arange(total, dtype=np.int64)
    b = BITS[t]
    if b == 32:
        return [pack_bits(pos + 0x1000, 32)]
    nplanes = -(-int(total - 1).bit_length() // b)
    return [pack_bits((pos >> (b * p)) & ((1 << b) - 1), b) for p in range(nplanes)]


def sub_store_bytes(si):
    lay, k, pad, _ = SUB_STORES[si]
    return 8 * sub_stride("c", lay, k, pad) * 4


# =====================================================================================================
# Part 3: wmma numerics: sub-byte, mixed f16, f64 rounding
# =====================================================================================================
WF = [  # (alayout, blayout, (m, n, k), (d, a, b, c), suffix words before the types, after)
    ("row", "col", (8, 8, 32), ("s32", "s4", "s4", "s32"), "", ""),
    ("row", "col", (8, 8, 32), ("s32", "s4", "s4", "s32"), "", ".satfinite"),
    ("row", "col", (8, 8, 32), ("s32", "u4", "u4", "s32"), "", ""),
    ("row", "col", (8, 8, 32), ("s32", "u4", "u4", "s32"), "", ".satfinite"),
    ("row", "col", (8, 8, 128), ("s32", "b1", "b1", "s32"), "xor", ""),
    ("row", "col", (8, 8, 128), ("s32", "b1", "b1", "s32"), "and", ""),
    ("row", "col", (16, 16, 16), ("f32", "f16", "f16", "f16"), "", ""),
    ("col", "row", (16, 16, 16), ("f16", "f16", "f16", "f32"), "", ""),
    ("row", "row", (32, 8, 16), ("f32", "f16", "f16", "f16"), "", ""),
    ("col", "col", (32, 8, 16), ("f16", "f16", "f16", "f32"), "", ""),
    ("row", "col", (8, 32, 16), ("f32", "f16", "f16", "f16"), "", ""),
    ("col", "row", (8, 32, 16), ("f16", "f16", "f16", "f32"), "", ""),
    ("row", "col", (8, 8, 4), ("f64", "f64", "f64", "f64"), ".rz", ""),
    ("col", "row", (8, 8, 4), ("f64", "f64", "f64", "f64"), ".rm", ""),
    ("row", "row", (8, 8, 4), ("f64", "f64", "f64", "f64"), ".rp", ""),
    ("col", "col", (8, 8, 4), ("f64", "f64", "f64", "f64"), ".rn", ""),
]


def wopcode(f):
    la, lb, (m, n, k), (d, a, b, c), pre, post = f
    types = f".{d}.{c}" if a == "f16" else f".{d}.{a}.{b}.{c}"
    if pre in ("xor", "and"):
        return f"wmma.mma.{pre}.popc.sync.aligned.{la}.{lb}.m{m}n{n}k{k}{types}"
    return f"wmma.mma.sync.aligned.{la}.{lb}.m{m}n{n}k{k}{pre}{types}{post}"


def wdims(frag, m, n, k):
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[frag]


def wnregs(frag, t, m, n, k):
    r, c = wdims(frag, m, n, k)
    if t == "f16":
        return 8 if frag in "ab" else 4
    if t == "f64":
        return 1 if frag in "ab" else 2
    return r * c * BITS[t] // 32 // 32


def wlayouts(fi):
    la, lb = WF[fi][0], WF[fi][1]
    return {"a": la, "b": lb, "c": "col" if fi % 2 else "row", "d": "row" if fi % 2 else "col"}


def tile_bytes(frag, t, m, n, k):
    r, c = wdims(frag, m, n, k)
    return r * c * BITS[t] // 8


def wmma_ptx():
    out = list(HDR)
    for fi, f in enumerate(WF):
        la, lb, (m, n, k), (d, a, b, c), _, _ = f
        f64 = a == "f64"
        x = "%d" if f64 else "%r"
        counts = {"a": wnregs("a", a, m, n, k), "b": wnregs("b", b, m, n, k), "c": wnregs("c", c, m, n, k),
                  "d": wnregs("c", d, m, n, k)}
        names, at = {}, 0
        for fr in "abcd":
            names[fr] = [f"{x}{at + i}" for i in range(counts[fr])]
            at += counts[fr]
        out += [f".visible .entry wmma{fi}(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)",
                "{", f"  .reg {'.f64' if f64 else '.b32'} {x}<{at}>;", "  .reg .b64 %rd<16>;",
                "  .reg .b32 %t<4>;", "  mov.u32 %t1, %ctaid.x;", "  mov.u32 %t2, %tid.x;",
                "  shr.u32 %t2, %t2, 5;", f"  mad.lo.s32 %t3, %t1, {WPC}, %t2;"]
        lay = wlayouts(fi)
        for i, (fr, t) in enumerate([("a", a), ("b", b), ("c", c), ("d", d)]):
            out += [f"  ld.param.u64 %rd{i}, [p{fr}];", f"  cvta.to.global.u64 %rd{i}, %rd{i};",
                    f"  mul.wide.u32 %rd{4 + i}, %t3, {tile_bytes(fr, t, m, n, k)};",
                    f"  add.s64 %rd{i}, %rd{i}, %rd{4 + i};"]
        for i, (fr, t) in enumerate([("a", a), ("b", b), ("c", c)]):
            r, cc = wdims(fr, m, n, k)
            stride = cc if lay[fr] == "row" else r
            out.append(f"  wmma.load.{fr}.sync.aligned.{lay[fr]}.m{m}n{n}k{k}.global.{t} "
                       f"{{{', '.join(names[fr])}}}, [%rd{i}], {stride};")
        out.append(f"  {wopcode(f)} {{{', '.join(names['d'])}}}, {{{', '.join(names['a'])}}}, "
                   f"{{{', '.join(names['b'])}}}, {{{', '.join(names['c'])}}};")
        stride = n if lay["d"] == "row" else m
        out.append(f"  wmma.store.d.sync.aligned.{lay['d']}.m{m}n{n}k{k}.global.{d} [%rd3], "
                   f"{{{', '.join(names['d'])}}}, {stride};")
        out += ["  ret;", "}", ""]
    return "\n".join(out)


def wmma_matrices(fi, warps):
    la, lb, (m, n, k), (d, a, b, c), _, _ = WF[fi]
    A = np.zeros((warps, m, k), np.uint64)
    B = np.zeros((warps, k, n), np.uint64)
    C = np.zeros((warps, m, n), np.uint64)
    for ri, regime in enumerate(P.REGIMES):
        sel = np.arange(ri, warps, len(P.REGIMES))
        w = len(sel)
        rng = P.Rng(77000 + fi * 100 + ri)
        A[sel] = P.elements(a, rng, (w, m, k), regime, "a")
        B[sel] = P.elements(b, rng, (w, k, n), regime, "b")
        C[sel] = P.elements(c, rng, (w, m, n), regime, "c")
        if regime == "cancel" and a in P.FLOATS:
            eb, mb, _ = P.FLOATS[a]
            flip = rng.coin((w, m, k // 2), 0.3).astype(np.uint64)
            A[sel, :, 1::2] = (A[sel, :, 0::2] ^ u64(1 << (eb + mb))) ^ flip
            B[sel, 1::2, :] = B[sel, 0::2, :]
        if regime == "nans" and a in P.FLOATS:
            A[sel] = P.with_nans(a, rng, A[sel], 2)
            B[sel] = P.with_nans(b, rng, B[sel], 1)
            C[sel] = np.where(rng.coin((w, m, n), 0.2), P.with_nans(c, rng, C[sel], None), C[sel])
    return A, B, C


def wmma_tiles(fi, warps):
    la, lb, (m, n, k), (d, a, b, c), _, _ = WF[fi]
    A, B, C = wmma_matrices(fi, warps)
    lay = wlayouts(fi)
    mem = []
    for M, t, fr in ((A, a, "a"), (B, b, "b"), (C, c, "c")):
        M = M if lay[fr] == "row" else M.transpose(0, 2, 1)
        mem.append(pack_bits(np.ascontiguousarray(M), BITS[t]))
    return mem


def d_bytes(fi, warps):
    la, lb, (m, n, k), (d, a, b, c), _, _ = WF[fi]
    return warps * m * n * BITS[d] // 8


# =====================================================================================================
# Part 4: mma.sync .f64 with .rz/.rm/.rp (probe.py's kernel and operands, sm_80 fragment layouts)
# =====================================================================================================
F64R = ["mma.sync.aligned.m8n8k4.row.col.rz.f64.f64.f64.f64",
        "mma.sync.aligned.m16n8k4.row.col.rm.f64.f64.f64.f64",
        "mma.sync.aligned.m16n8k8.row.col.rp.f64.f64.f64.f64",
        "mma.sync.aligned.m16n8k16.row.col.rz.f64.f64.f64.f64",
        "mma.sync.aligned.m8n8k4.row.col.rm.f64.f64.f64.f64",
        "mma.sync.aligned.m8n8k4.row.col.rp.f64.f64.f64.f64"]
P.forms = lambda: list(F64R)
F64R_WARPS = 1024


# =====================================================================================================
# Golden samples: one kernel per sample, every form in its own CTA row (ctaid.y), SW warps each
# (the first SW warps of the campaign: the generator is prefix-stable)
# =====================================================================================================
SW = 12


def sample884_ptx():
    out = list(HDR) + [".visible .entry m884_sample(.param .u64 inp, .param .u64 out)", "{",
                       "  .reg .pred %p<2>;", "  .reg .b32 %t<8>;", "  .reg .b64 %rd<6>;", "  .reg .b32 %r<32>;",
                       "  ld.param.u64 %rd1, [inp];", "  ld.param.u64 %rd2, [out];",
                       "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;",
                       "  mov.u32 %t1, %ctaid.y;", "  mov.u32 %t2, %nctaid.x;", "  mov.u32 %t3, %ctaid.x;",
                       "  mad.lo.s32 %t4, %t1, %t2, %t3;", "  mov.u32 %t5, %ntid.x;", "  mov.u32 %t6, %tid.x;",
                       "  mad.lo.s32 %t4, %t4, %t5, %t6;",
                       f"  mul.wide.u32 %rd3, %t4, {IN884 * 4};", "  add.s64 %rd3, %rd1, %rd3;",
                       f"  mul.wide.u32 %rd4, %t4, {OUT884 * 4};", "  add.s64 %rd4, %rd2, %rd4;"]
    for fi in range(len(F884)):
        out += [f"  setp.eq.u32 %p1, %t1, {fi};", f"  @%p1 bra FORM{fi};"]
    out.append("  ret;")
    for fi, f in enumerate(F884):
        nc, nd = nregs884(f[4]), nregs884(f[2])
        out.append(f"FORM{fi}:")
        out += [f"  ld.global.b32 %r{i}, [%rd3+{4 * i}];" for i in range(4 + nc)]
        dst = [f"%r{16 + i}" for i in range(nd)]
        cs = [f"%r{4 + i}" for i in range(nc)]
        out.append(f"  {op884(f)} {{{', '.join(dst)}}}, {{%r0, %r1}}, {{%r2, %r3}}, {{{', '.join(cs)}}};")
        out += [f"  st.global.b32 [%rd4+{4 * i}], {r};" for i, r in enumerate(dst)]
        out.append("  ret;")
    out.append("}")
    return "\n".join(out) + "\n"


def sample884_inputs():
    return np.stack([operands884(fi, SW) for fi in range(len(F884))])  # (F, SW, 32, IN884)


def wsample_offsets():
    """Byte offset of each form's tiles in the buffers a, b, c, d (SW warps each)."""
    offs, at = [], {"a": 0, "b": 0, "c": 0, "d": 0}
    for f in WF:
        la, lb, (m, n, k), (d, a, b, c), _, _ = f
        offs.append(dict(at))
        for fr, t in (("a", a), ("b", b), ("c", c), ("d", d)):
            at[fr] += SW * tile_bytes(fr, t, m, n, k)
    return offs, at


def wsample_ptx():
    offs, _ = wsample_offsets()
    out = list(HDR) + [".visible .entry wmma_sample(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)",
                       "{", "  .reg .pred %p<2>;", "  .reg .b32 %r<40>;", "  .reg .f64 %d<8>;",
                       "  .reg .b64 %rd<16>;", "  .reg .b32 %t<4>;",
                       "  mov.u32 %t1, %ctaid.x;", "  mov.u32 %t2, %tid.x;", "  shr.u32 %t2, %t2, 5;",
                       f"  mad.lo.s32 %t3, %t1, {WPC}, %t2;", "  mov.u32 %t0, %ctaid.y;"]
    for i, fr in enumerate("abcd"):
        out += [f"  ld.param.u64 %rd{i}, [p{fr}];", f"  cvta.to.global.u64 %rd{i}, %rd{i};"]
    for fi in range(len(WF)):
        out += [f"  setp.eq.u32 %p1, %t0, {fi};", f"  @%p1 bra FORM{fi};"]
    out.append("  ret;")
    for fi, f in enumerate(WF):
        la, lb, (m, n, k), (d, a, b, c), _, _ = f
        f64 = a == "f64"
        x = "%d" if f64 else "%r"
        counts = {"a": wnregs("a", a, m, n, k), "b": wnregs("b", b, m, n, k), "c": wnregs("c", c, m, n, k),
                  "d": wnregs("c", d, m, n, k)}
        names, at = {}, 0
        for fr in "abcd":
            names[fr] = [f"{x}{at + i}" for i in range(counts[fr])]
            at += counts[fr]
        out.append(f"FORM{fi}:")
        lay = wlayouts(fi)
        for i, (fr, t) in enumerate([("a", a), ("b", b), ("c", c), ("d", d)]):
            out += [f"  mul.wide.u32 %rd{4 + i}, %t3, {tile_bytes(fr, t, m, n, k)};",
                    f"  add.s64 %rd{8 + i}, %rd{i}, %rd{4 + i};",
                    f"  add.s64 %rd{8 + i}, %rd{8 + i}, {offs[fi][fr]};"]
        for i, (fr, t) in enumerate([("a", a), ("b", b), ("c", c)]):
            r, cc = wdims(fr, m, n, k)
            stride = cc if lay[fr] == "row" else r
            out.append(f"  wmma.load.{fr}.sync.aligned.{lay[fr]}.m{m}n{n}k{k}.global.{t} "
                       f"{{{', '.join(names[fr])}}}, [%rd{8 + i}], {stride};")
        out.append(f"  {wopcode(f)} {{{', '.join(names['d'])}}}, {{{', '.join(names['a'])}}}, "
                   f"{{{', '.join(names['b'])}}}, {{{', '.join(names['c'])}}};")
        stride = n if lay["d"] == "row" else m
        out.append(f"  wmma.store.d.sync.aligned.{lay['d']}.m{m}n{n}k{k}.global.{d} [%rd11], "
                   f"{{{', '.join(names['d'])}}}, {stride};")
        out.append("  ret;")
    out.append("}")
    return "\n".join(out) + "\n"


def wsample_inputs():
    tiles = [wmma_tiles(fi, SW) for fi in range(len(WF))]
    return [np.concatenate([t[i] for t in tiles]) for i in range(3)]


def f64r_sample_inputs():
    return P.all_operands(SW)  # (F, SW, 32, IN_WORDS)


# =====================================================================================================
# Launchers: the same launches on the GPU (CuPy), in ptxrun, or nowhere (--dry)
# =====================================================================================================
class Gpu:
    def __init__(self, texts, tmp):
        import cupy as cp
        self.cp = cp
        self.mods = {k: cp.RawModule(path=os.path.join(tmp, k + ".ptx")) for k in texts}

    def __call__(self, mod, entry, grid, block, bufs):
        cp = self.cp
        dev = [cp.asarray(b) for b in bufs]
        self.mods[mod].get_function(entry)(grid, block, tuple(dev))
        return [cp.asnumpy(d) for d in dev]


class Dry:
    def __call__(self, mod, entry, grid, block, bufs):
        return [b.copy() for b in bufs]


class Cpu:
    def __init__(self, ptxrun, texts, work):
        self.ptxrun, self.work = ptxrun, work
        for k, v in texts.items():
            with open(os.path.join(work, k + ".ptx"), "w") as fh:
                fh.write(v)

    def __call__(self, mod, entry, grid, block, bufs):
        w = self.work
        os.makedirs(os.path.join(w, "in"), exist_ok=True)
        g = f"[{grid[0]}, {grid[1]}]" if len(grid) > 1 else f"{grid[0]}"
        lines = [f'kernel = "{mod}.ptx"\nentry = "{entry}"\ngrid = {g}\nblock = {block[0]}\n']
        for i, b in enumerate(bufs):
            b.view(np.uint8).tofile(os.path.join(w, "in", f"b{i}.bin"))
            lines.append(f'[[params]]\nbuffer = "b{i}"\ntype = "u8"\nlen = {b.nbytes}\ninit = "in/b{i}.bin"\n')
        lines.append("[outputs]\n" + "\n".join(f'b{i} = "out/b{i}.bin"' for i in range(len(bufs))))
        with open(os.path.join(w, "launch.toml"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
        r = subprocess.run([self.ptxrun, "run", "--no-check", w], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"ptxrun {mod}/{entry}: {r.stderr[-2000:]}")
        return [np.fromfile(os.path.join(w, "out", f"b{i}.bin"), dtype=b.dtype).reshape(b.shape)
                for i, b in enumerate(bufs)]


# =====================================================================================================
# tools
# =====================================================================================================
def find_tool(name):
    p = shutil.which(name)
    if p:
        return p
    for d in ("/usr/local/cuda/bin", "/usr/local/cuda-13.0/bin", "/opt/cuda/bin"):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    try:
        p = subprocess.run([os.path.expanduser("~/.cache/ptxrun/cuda-venv/bin/nvcc-path")], capture_output=True,
                           text=True, timeout=10).stdout.strip()
        if p and os.path.exists(os.path.join(p, name)):
            return os.path.join(p, name)
    except Exception:
        pass
    return None


def ptxas_sass(texts, tmp, want_sass):
    """ptxas-check every module; SASS text of each (if cuobjdump exists and want_sass)."""
    ptxas, cuobj = find_tool("ptxas"), find_tool("cuobjdump")
    log, sass = [], {}
    for name, text in texts.items():
        path = os.path.join(tmp, name + ".ptx")
        with open(path, "w") as fh:
            fh.write(text)
        if not ptxas:
            log.append(f"{name}: no ptxas")
            continue
        cub = os.path.join(tmp, name + ".cubin")
        try:
            r = subprocess.run([ptxas, "-arch=sm_90a", path, "-o", cub], capture_output=True, text=True, timeout=60)
            log.append(f"{name}: ptxas rc {r.returncode} {r.stderr.strip()[:2000]}")
            if r.returncode == 0 and cuobj and want_sass:
                s = subprocess.run([cuobj, "-sass", cub], capture_output=True, text=True, timeout=60)
                sass[name] = s.stdout
        except Exception as e:  # noqa: BLE001
            log.append(f"{name}: {e!r}")
    return log, sass


# =====================================================================================================
# the parts
# =====================================================================================================
def part884(res, run, t0):
    for name, fi, x in layout884_inputs():
        key = f"l884_{name}_{fi}"
        res[key + "_in"] = x
        W = x.shape[0]
        res[key] = run("m884", f"m884_{fi}", (W,), (32,), [x, np.zeros((W, 32, OUT884), np.uint32)])[1]
    for fi, f in enumerate(F884):
        x = operands884(fi, WARPS)
        res[f"m884_{fi}_indigest"] = digests(x.reshape(WARPS, -1))
        out = run("m884", f"m884_{fi}", (WARPS // WPC,), (32 * WPC,),
                  [x, np.zeros((WARPS, 32, OUT884), np.uint32)])[1]
        res[f"m884_{fi}_digest"] = digests(out.reshape(WARPS, -1))
        res[f"m884_{fi}_raw"] = out[:KEEP884]
    print(f"m8n8k4: {len(F884)} forms x {WARPS} warps  ({time.time() - t0:.1f} s)")


def part_sub(res, run, t0):
    for ci in range(len(SUB_LOADS)):
        nr = sub_nregs(SUB_LOADS[ci][0])
        for pi, img in enumerate(sub_load_inputs(ci)):
            res[f"subload{ci}_{pi}"] = run("sublayout", f"subload{ci}", (1,), (32,),
                                           [img, np.zeros(32 * nr, np.uint32)])[1]
    for si in range(len(SUB_STORES)):
        dst = np.full(sub_store_bytes(si) // 4, 0xFFFFFFFF, np.uint32)
        res[f"substore{si}"] = run("sublayout", f"substore{si}", (1,), (32,), [dst])[0]
    print(f"sub-byte layouts: {len(SUB_LOADS)} loads, {len(SUB_STORES)} stores  ({time.time() - t0:.1f} s)")


def part_wmma(res, run, t0):
    for fi, f in enumerate(WF):
        a, b, c = wmma_tiles(fi, WARPS)
        res[f"w{fi}_indigest"] = np.array([digests(z.reshape(WARPS, -1).view(np.uint32))[:4] for z in (a, b, c)])
        out = run("wmma", f"wmma{fi}", (WARPS // WPC,), (32 * WPC,),
                  [a, b, c, np.zeros(d_bytes(fi, WARPS), np.uint8)])[3]
        per = out.reshape(WARPS, -1)
        res[f"w{fi}_digest"] = digests(per.view(np.uint32))
        res[f"w{fi}_raw"] = per[:KEEPSUB] if per.shape[1] <= 256 else per[:KEEP]
    print(f"wmma: {len(WF)} forms x {WARPS} warps  ({time.time() - t0:.1f} s)")


def part_f64r(res, run, t0):
    inp = np.stack([P.operands(y, f, F64R_WARPS) for y, f in enumerate(F64R)])
    res["f64r_indigest"] = np.array([digests(inp[y].reshape(F64R_WARPS, -1)) for y in range(len(F64R))])
    out = run("f64r", "mma_probe", P.grid(F64R_WARPS), (32 * P.WARPS_PER_CTA,),
              [inp, np.zeros(inp.shape[:3] + (P.OUT_WORDS,), np.uint32)])[1]
    res["f64r_digest"] = np.array([digests(out[y].reshape(F64R_WARPS, -1)) for y in range(len(F64R))])
    res["f64r_raw"] = out[:, :KEEP884]
    print(f"mma f64 rounding: {len(F64R)} forms x {F64R_WARPS} warps  ({time.time() - t0:.1f} s)")


def part_samples(res, run, t0):
    x = sample884_inputs()
    res["s884_out"] = run("s884", "m884_sample", (SW // WPC, len(F884)), (32 * WPC,),
                          [x, np.zeros(x.shape[:3] + (OUT884,), np.uint32)])[1]
    a, b, c = wsample_inputs()
    _, tot = wsample_offsets()
    res["swmma_out"] = run("swmma", "wmma_sample", (SW // WPC, len(WF)), (32 * WPC,),
                           [a, b, c, np.zeros(tot["d"], np.uint8)])[3]
    x = f64r_sample_inputs()
    res["sf64r_out"] = run("f64r", "mma_probe", (SW // WPC, len(F64R)), (32 * P.WARPS_PER_CTA,),
                           [x, np.zeros(x.shape[:3] + (P.OUT_WORDS,), np.uint32)])[1]
    print(f"samples ({time.time() - t0:.1f} s)")


def texts_all():
    return {"m884": ptx884(), "sublayout": sub_layout_ptx(), "wmma": wmma_ptx(), "f64r": P.ptx(),
            "s884": sample884_ptx(), "swmma": wsample_ptx()}


def collect(outpath, mode, ptxrun=None):
    import traceback
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="wmprobe")
    texts = texts_all()
    res = {f"ptx_{k}": np.array(v) for k, v in texts.items()}
    errors = []
    try:
        res["forms884"] = np.array([op884(f) for f in F884])
        res["formsw"] = np.array([wopcode(f) for f in WF])
        res["formsf64r"] = np.array(F64R)
        if mode != "cpu":
            log, sass = ptxas_sass(texts, tmp, mode == "gpu")
            print("\n".join(log))
            res["ptxas_log"] = np.array("\n".join(log))
            for k, v in sass.items():
                res[f"sass_{k}"] = np.array(v)
        if mode == "gpu":
            run = Gpu(texts, tmp)
            import cupy as cp
            name = cp.cuda.runtime.getDeviceProperties(0)["name"]
            res["device"] = np.array(name.decode() if isinstance(name, bytes) else str(name))
        elif mode == "cpu":
            run = Cpu(ptxrun, texts, tmp)
            res["device"] = np.array("ptxrun")
        else:
            run = Dry()
        for part in (part884, part_sub, part_wmma, part_f64r, part_samples):
            try:
                part(res, run, t0)
            except Exception:  # noqa: BLE001
                errors.append(traceback.format_exc())
                print(errors[-1])
    except Exception:  # noqa: BLE001
        errors.append(traceback.format_exc())
        print(errors[-1])
    finally:
        res["errors"] = np.array("\n".join(errors))
        np.savez_compressed(outpath, **res)
        print(f"wrote {outpath}: {os.path.getsize(outpath)} bytes, {time.time() - t0:.1f} s, {len(errors)} errors")


# =====================================================================================================
# comparing, golden samples
# =====================================================================================================
def device(g):
    """The GPU's name (older runs stored it as the text of a bytes object)."""
    name = str(g["device"])
    return name[2:-1] if name.startswith("b'") else name


def compare(gpu_npz, cpu_npz):
    """Prints the tables of README.md; returns the number of mismatching warps and layout cases."""
    g, c = np.load(gpu_npz), np.load(cpu_npz)
    bad_total = 0
    layouts = [k for k in g.files if k.startswith(("l884_", "subload", "substore")) and not k.endswith("_in")]
    bad = [k for k in layouts if k not in c.files or not np.array_equal(g[k], c[k])]
    print(f"fragment layouts: {len(layouts)} experiments, {len(bad)} differing from the {device(g)}"
          + (f": {bad[:8]}" if bad else ""))
    bad_total += len(bad)
    print("\n| form | instructions | dot products | mismatching instructions |\n|---|---|---|---|")
    rows = [(op884(f), f"m884_{fi}", WARPS, 4 * 64) for fi, f in enumerate(F884)]
    for fi, f in enumerate(WF):
        m, n, _ = f[2]
        rows.append((wopcode(f), f"w{fi}", WARPS, m * n))
    for y, f in enumerate(F64R):
        m, n, _, _ = P.parse(f)
        rows.append((f, ("f64r", y), F64R_WARPS, m * n))
    for name, key, warps, dots in rows:
        if isinstance(key, tuple):
            gd, cd = g["f64r_digest"][key[1]], c["f64r_digest"][key[1]]
            graw, craw = g["f64r_raw"][key[1]], c["f64r_raw"][key[1]]
        else:
            gd, cd = g[key + "_digest"], c[key + "_digest"]
            graw, craw = g[key + "_raw"], c[key + "_raw"]
        warps = len(gd)
        wrong = np.nonzero(gd != cd)[0]
        bad_total += len(wrong)
        print(f"| `{name}` | {warps} | {warps * dots} | {len(wrong)} |")
        for w in wrong[:3]:
            if w >= len(graw):
                continue
            gw, cw = graw[w].reshape(-1), craw[w].reshape(-1)
            if gw.dtype == np.uint8:
                gw, cw = gw.view(np.uint32), cw.view(np.uint32)
            diff = np.nonzero(gw != cw)[0]
            print(f"    warp {w} ({P.REGIMES[w % len(P.REGIMES)]}): {len(diff)} words differ, first "
                  + ", ".join(f"[{i}] ptxrun {cw[i]:#010x} GPU {gw[i]:#010x}" for i in diff[:3]))
    for k in ("s884_out", "swmma_out", "sf64r_out"):
        if k in g.files and not np.array_equal(g[k], c[k]):
            print(f"golden sample launch {k} differs")
            bad_total += 1
    print(f"total mismatching: {bad_total}")
    return bad_total


def write_launch(sdir, entry, grid, block, params, outputs, note):
    lines = [f'kernel = "kernel.ptx"\nentry = "{entry}"\ngrid = [{grid[0]}, {grid[1]}]\nblock = {block}\n']
    for name, typ, count, init in params:
        lines.append(f'[[params]]\nbuffer = "{name}"\ntype = "{typ}"\nlen = {count}\ninit = "{init}"\n')
    lines.append("[outputs]\n" + "\n".join(f'{o} = "out/{o}.bin"' for o in outputs) + "\n")
    lines.append("[expect]\noutputs = { " + ", ".join(f'{o} = "expected/{o}.bin"' for o in outputs) + " }\n")
    os.makedirs(sdir, exist_ok=True)
    with open(os.path.join(sdir, "launch.toml"), "w") as fh:
        fh.write("\n".join(lines))
    with open(os.path.join(sdir, "provenance.toml"), "w") as fh:
        fh.write(note)


def samples(gpu_npz, root, date):
    """ptx-samples/matrix/{mma_m8n8k4, wmma_subbyte, mma_f64_rounding}: the kernels and inputs of
    part_samples, the GPU's outputs as expected/."""
    g = np.load(gpu_npz)
    gpu = device(g)
    gen = "docs/numerics/mma/remaining.py samples (kernel and operands generated; one CTA row per form"

    def put(name, ptx, ins, out_name, out, entry, grid, params, what):
        sdir = os.path.join(root, name)
        for sub in ("inputs", "expected"):
            os.makedirs(os.path.join(sdir, sub), exist_ok=True)
        with open(os.path.join(sdir, "kernel.ptx"), "w") as fh:
            fh.write(ptx)
        for k, v in ins.items():
            np.ascontiguousarray(v).tofile(os.path.join(sdir, "inputs", f"{k}.bin"))
        np.ascontiguousarray(out).tofile(os.path.join(sdir, "expected", f"{out_name}.bin"))
        note = (f'generator = "{gen}, {SW} warps each)"\n'
                f'note = "{what} over {SW} warps per form in the 11 operand regimes of docs/numerics/mma '
                f'(random, wide exponents, raw bits, cancelling pairs, truncation boundary, subnormals, signed '
                f'zeros, specials, near overflow, small integers, NaN payloads); expected/ is the GPU\'s output"\n'
                f'gpu = "{gpu}"\ndate = "{date}"\n')
        write_launch(sdir, entry, grid, 32 * WPC, params, [out_name], note)

    x = sample884_inputs()
    put("mma_m8n8k4", sample884_ptx(), {"inp": x}, "out", g["s884_out"], "m884_sample", (SW // WPC, len(F884)),
        [("inp", "u32", x.size, "inputs/inp.bin"), ("out", "u32", x.size // IN884 * OUT884, "zeros")],
        "the sm_70 mma.m8n8k4 forms (f16 and bf16; every layout of A and B; f16/f32 D and C)")
    a, b, c = wsample_inputs()
    _, tot = wsample_offsets()
    put("wmma_subbyte", wsample_ptx(), {"a": a, "b": b, "c": c}, "pd", g["swmma_out"], "wmma_sample",
        (SW // WPC, len(WF)),
        [("pa", "u8", a.size, "inputs/a.bin"), ("pb", "u8", b.size, "inputs/b.bin"),
         ("pc", "u8", c.size, "inputs/c.bin"), ("pd", "u8", tot["d"], "zeros")],
        "wmma.load/mma/store of the sub-byte forms (.s4, .u4, .b1 xor/and), .f16 with D and C of different "
        "types, and .f64 with .rz/.rm/.rp/.rn")
    x = f64r_sample_inputs()
    put("mma_f64_rounding", P.ptx(), {"inp": x}, "out", g["sf64r_out"], "mma_probe", (SW // WPC, len(F64R)),
        [("inp", "u32", x.size, "inputs/inp.bin"), ("out", "u32", x.size // P.IN_WORDS * P.OUT_WORDS, "zeros")],
        "mma.sync .f64 with .rz, .rm and .rp")


def set_warps(arg):
    """An optional WARPS argument: warps per form (mma .f64 rounding forms: half as many)."""
    global WARPS, F64R_WARPS
    if arg:
        WARPS, F64R_WARPS = int(arg), int(arg) // 2


if __name__ == "__main__":
    argv = sys.argv[1:] + [None]
    if argv[0] == "--dry":
        set_warps(argv[2])
        collect(argv[1], "dry")
    elif argv[0] == "cpu":
        set_warps(argv[3])
        collect(argv[2], "cpu", argv[1])
    elif argv[0] == "gpu":
        set_warps(argv[2])
        collect(argv[1], "gpu")
    elif argv[0] == "compare":
        sys.exit(1 if compare(argv[1], argv[2]) else 0)
    elif argv[0] == "samples":
        samples(argv[1], argv[2], argv[3])
    else:  # the probe's entry point: gpu.py OUT.npz
        collect(argv[0], "gpu")
