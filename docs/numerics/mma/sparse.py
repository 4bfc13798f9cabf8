#!/usr/bin/env python3
"""The sparse mma.sync (mma.sp) campaign (see README.md beside this file, "Sparse mma").

One PTX kernel holds every (form, sparsity selector) pair as a path; a table gives each CTA (four
warps) its path. Each lane loads its registers from `inp` (16 words: A in 0..3, B in 4..7, C in
8..11, the metadata register in 12), runs the `mma.sp`, and stores D (4 words) to `out`.

Three experiments, all in one launch:
  camp  every path, WARPS warps of random operands (the regimes of probe.py) and random metadata:
        a quarter of the warps in each of four metadata modes, every nibble of every lane
        (0, 1) increasing index pairs, (2) distinct indices in any order, (3) raw bits
  onehot  the A layout: one compressed element of one lane is 1, the rest 0; B[k][n] = bit n of k
        (n < 7), B[k][7] = 1; every metadata nibble 0x4 (indices 0 and 1): D's row holding a 1 in
        column 7 is the element's row, columns 0..6 its k
  nibble  the metadata layout: A all 1, B[k][n] = (position of k's unit in its chunk + 1) if k's
        chunk is 8 h + n else 0; every nibble 0x4 except lane t's nibble p, 0xE (indices 2 and 3)

  sparse.py ptx OUT.ptx               write the kernel
  sparse.py gpu OUT.npz [--dry]       run everything (GPU + CuPy), write digests and raw D
  sparse.py cpu PTXRUN RESULT.npz DIR run the same launch in ptxrun, compare
  sparse.py sample RESULT.npz DIR     write the golden sample
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import probe  # noqa: E402  (operand generators shared with the dense campaign)
from probe import FLOATS, TYPES, REGIMES, Rng, splitmix  # noqa: E402

IN_WORDS, OUT_WORDS, WPC = 16, 4, 4
A0, B0, C0, E0 = 0, 4, 8, 12

# (shape, D, A, B, C, selectors): the forms ptxas 13 accepts for sm_90a. ptxas takes selectors
# 0..3 for the f32 m16n8k32 f16 form although the ISA allows 0..1 there: measured too.
BASE = [
    ("m16n8k16", "f32", "f16", "f16", "f32", 4),
    ("m16n8k16", "f16", "f16", "f16", "f16", 4),
    ("m16n8k32", "f32", "f16", "f16", "f32", 4),
    ("m16n8k32", "f16", "f16", "f16", "f16", 2),
    ("m16n8k16", "f32", "bf16", "bf16", "f32", 4),
    ("m16n8k32", "f32", "bf16", "bf16", "f32", 2),
    ("m16n8k8", "f32", "tf32", "tf32", "f32", 4),
    ("m16n8k16", "f32", "tf32", "tf32", "f32", 2),
    ("m16n8k64", "f32", "e4m3", "e4m3", "f32", 1),
    ("m16n8k64", "f32", "e4m3", "e5m2", "f32", 1),
    ("m16n8k64", "f32", "e5m2", "e4m3", "f32", 1),
    ("m16n8k64", "f32", "e5m2", "e5m2", "f32", 1),
]
for shape, sels in (("m16n8k32", 2), ("m16n8k64", 1)):
    for a in ("s8", "u8"):
        for b in ("s8", "u8"):
            BASE.append((shape, "s32", a, b, "s32", sels))
for shape, sels in (("m16n8k64", 2), ("m16n8k128", 1)):
    for a in ("s4", "u4"):
        for b in ("s4", "u4"):
            BASE.append((shape, "s32", a, b, "s32", sels))

VARIANTS = ["mma.sp::ordered_metadata", "mma.sp"]


def forms():
    """Every form: (opcode, shape, types (d, a, b, c), selectors)."""
    out = []
    for var in VARIANTS:
        for shape, d, a, b, c, sels in BASE:
            sats = ["", ".satfinite"] if a in ("s8", "u8", "s4", "u4") else [""]
            for sat in sats:
                op = f"{var}.sync.aligned.{shape}.row.col{sat}.{d}.{a}.{b}.{c}"
                out.append((op, shape, (d, a, b, c), sels))
    return out


def paths():
    return [(op, shape, types, sel) for op, shape, types, sels in forms() for sel in range(sels)]


def dims(shape):
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def nregs(shape, types):
    m, n, k = dims(shape)
    d, a, b, c = types
    per = lambda elems, t: elems // 32 * TYPES[t] // 32
    return per(m * n, d), per(m * k // 2, a), per(k * n, b), per(m * n, c)


def unit(t):
    """Elements of one metadata index unit (a chunk is 4 units): tf32 1/2, 4-bit 2, else 1."""
    return {"tf32": 0.5, "s4": 2, "u4": 2}.get(t, 1)


def per_reg(t):
    return 32 // TYPES[t]


def a_at(t, lane, r, j):
    """(row, compressed column) of A's register r, element j (the dense layout of K/2)."""
    g, q, e = lane // 4, lane % 4, per_reg(t)
    return g + 8 * (r % 2), e * q + 4 * e * (r // 2) + j


# ---- the kernel ----
def ptx():
    P = paths()
    L = [".version 8.7", ".target sm_90a", ".address_size 64", "",
         ".visible .entry sp_probe(.param .u64 inp, .param .u64 out, .param .u64 tab)", "{",
         "  .reg .pred %p<2>;", "  .reg .b32 %t<10>;", "  .reg .b64 %rd<10>;", "  .reg .b32 %r<40>;",
         "  ld.param.u64 %rd1, [inp];", "  ld.param.u64 %rd2, [out];", "  ld.param.u64 %rd5, [tab];",
         "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;", "  cvta.to.global.u64 %rd5, %rd5;",
         "  mov.u32 %t3, %ctaid.x;", "  mul.wide.u32 %rd6, %t3, 4;", "  add.s64 %rd6, %rd5, %rd6;",
         "  ld.global.u32 %t1, [%rd6];",
         "  mov.u32 %t5, %ntid.x;", "  mov.u32 %t6, %tid.x;", "  mad.lo.s32 %t4, %t3, %t5, %t6;",
         f"  mul.wide.u32 %rd3, %t4, {IN_WORDS * 4};", "  add.s64 %rd3, %rd1, %rd3;",
         f"  mul.wide.u32 %rd4, %t4, {OUT_WORDS * 4};", "  add.s64 %rd4, %rd2, %rd4;"]
    for y in range(len(P)):
        L += [f"  setp.eq.u32 %p1, %t1, {y};", f"  @%p1 bra P{y};"]
    L.append("  ret;")
    for y, (op, shape, types, sel) in enumerate(P):
        nd, na, nb, nc = nregs(shape, types)
        L.append(f"P{y}:")
        for base, cnt in ((A0, na), (B0, nb), (C0, nc), (E0, 1)):
            for i in range(cnt):
                L.append(f"  ld.global.b32 %r{base + i}, [%rd3+{4 * (base + i)}];")
        fmt = lambda base, cnt: "{" + ", ".join(f"%r{base + i}" for i in range(cnt)) + "}"
        L.append(f"  {op} {fmt(20, nd)}, {fmt(A0, na)}, {fmt(B0, nb)}, {fmt(C0, nc)}, %r{E0}, {sel};")
        for i in range(nd):
            L.append(f"  st.global.b32 [%rd4+{4 * i}], %r{20 + i};")
        L.append("  ret;")
    L.append("}")
    return "\n".join(L) + "\n"


def sass_ptx():
    """One small kernel per form (selector 0), for cuobjdump."""
    L = [".version 8.7", ".target sm_90a", ".address_size 64", ""]
    for i, (op, shape, types, sels) in enumerate(forms()):
        nd, na, nb, nc = nregs(shape, types)
        L += [f"// {op}", f".visible .entry f{i}(.param .u64 io)", "{", "  .reg .b32 %r<40>;", "  .reg .b64 %rd<4>;",
              "  ld.param.u64 %rd1, [io];", "  cvta.to.global.u64 %rd1, %rd1;"]
        for j in range(16):
            L.append(f"  ld.global.b32 %r{j}, [%rd1+{4 * j}];")
        fmt = lambda base, cnt: "{" + ", ".join(f"%r{base + i}" for i in range(cnt)) + "}"
        L.append(f"  {op} {fmt(20, nd)}, {fmt(A0, na)}, {fmt(B0, nb)}, {fmt(C0, nc)}, %r{E0}, 0;")
        for j in range(nd):
            L.append(f"  st.global.b32 [%rd1+{4 * j}], %r{20 + j};")
        L += ["  ret;", "}", ""]
    return "\n".join(L)


# ---- packing ----
def b_at(t, lane, r, j):
    g, q, e = lane // 4, lane % 4, per_reg(t)
    return e * q + 4 * e * r + j, g


def c_at(lane, i):
    g, q = lane // 4, lane % 4
    return g + 8 * (i // 2), 2 * q + i % 2


def registers(shape, types, A, B, C, E):
    """uint32 (W, 32, IN_WORDS) from compressed A (W, 16, K/2), B (W, K, 8), C (W, 16, 8) element bits
    and metadata words E (W, 32)."""
    nd, na, nb, nc = nregs(shape, types)
    d, a, b, c = types
    W = A.shape[0]
    words = np.zeros((W, 32, IN_WORDS), dtype=np.uint32)
    for lane in range(32):
        for r in range(na):
            v = np.zeros(W, dtype=np.uint64)
            for j in range(per_reg(a)):
                row, col = a_at(a, lane, r, j)
                v |= A[:, row, col] << np.uint64(j * TYPES[a])
            words[:, lane, A0 + r] = v.astype(np.uint32)
        for r in range(nb):
            v = np.zeros(W, dtype=np.uint64)
            for j in range(per_reg(b)):
                row, col = b_at(b, lane, r, j)
                v |= B[:, row, col] << np.uint64(j * TYPES[b])
            words[:, lane, B0 + r] = v.astype(np.uint32)
        for r in range(nc):
            v = np.zeros(W, dtype=np.uint64)
            for j in range(per_reg(c)):
                row, col = c_at(lane, r * per_reg(c) + j)
                v |= C[:, row, col] << np.uint64(j * TYPES[c])
            words[:, lane, C0 + r] = v.astype(np.uint32)
    words[:, :, E0] = E
    return words


# ---- metadata ----
ORDERED = [0x4, 0x8, 0xC, 0x9, 0xD, 0xE]
DISTINCT = ORDERED + [0x1, 0x2, 0x3, 0x6, 0x7, 0xB]
TF32_ORDERED = [0x4, 0xE]
TF32_DISTINCT = [0x4, 0xE, 0x1, 0xB]


def meta_words(rng, W, a, mode):
    """(W, 32) metadata words: every nibble from the mode's set (mode 3: raw bits)."""
    if mode == 3:
        return (rng.bits((W, 32)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    pool = np.array((TF32_ORDERED if mode < 2 else TF32_DISTINCT) if a == "tf32" else
                    (ORDERED if mode < 2 else DISTINCT), dtype=np.uint64)
    pick = pool[rng.ints((W, 32, 8), 0, len(pool))]
    return (pick << (np.arange(8, dtype=np.uint64) * np.uint64(4))).sum(axis=2).astype(np.uint32)


# ---- the experiments ----
def camp_inputs(y, shape, types, W):
    """Random operands for path y: the regimes of probe.py (warp w: regime w mod 11, metadata
    mode (w // 11) mod 4)."""
    m, n, k = dims(shape)
    d, a, b, c = types
    kc = k // 2
    A = np.zeros((W, m, kc), dtype=np.uint64)
    B = np.zeros((W, k, n), dtype=np.uint64)
    C = np.zeros((W, m, n), dtype=np.uint64)
    for ri, regime in enumerate(REGIMES):
        sel = np.arange(ri, W, len(REGIMES))
        if len(sel) == 0:
            continue
        rng = Rng(7000 + y * 100 + ri)
        w = len(sel)
        A[sel] = probe.elements(a, rng, (w, m, kc), regime, "a")
        B[sel] = probe.elements(b, rng, (w, k, n), regime, "b")
        C[sel] = probe.elements(c, rng, (w, m, n), regime, "c")
        if regime == "cancel" and a in FLOATS:
            # the two kept products of a chunk cancel (30% off by one ulp): B's rows equal in a chunk
            eb, mb, _ = FLOATS[a]
            sh = 13 if a == "tf32" else 0
            signbit = np.uint64(1 << (eb + mb + sh))
            flip = rng.coin((w, m, kc // 2), 0.3).astype(np.uint64) << np.uint64(sh)
            A[sel, :, 1::2] = (A[sel, :, 0::2] ^ signbit) ^ flip
            B[sel] = np.repeat(B[sel][:, ::4, :], 4, axis=1)
        if regime == "nans" and a in FLOATS:
            A[sel] = probe.with_nans(a, rng, A[sel], 2)
            B[sel] = probe.with_nans(b, rng, B[sel], 1)
            C[sel] = np.where(rng.coin((w, m, n), 0.2), probe.with_nans(c, rng, C[sel], None), C[sel])
    E = np.zeros((W, 32), dtype=np.uint32)
    rng = Rng(9000 + y)
    for mode in range(4):
        ws = np.nonzero((np.arange(W) // len(REGIMES)) % 4 == mode)[0]
        E[ws] = meta_words(rng, len(ws), types[1], mode)
    return registers(shape, types, A, B, C, E)


def one(t, v=1):
    """Bit pattern of the value v (0 or small integer) in type t."""
    if t in FLOATS:
        return probe.encode_int(t, v)
    return v


def onehot_inputs(shape, types):
    m, n, k = dims(shape)
    d, a, b, c = types
    kc = k // 2
    slots = [(lane, r, j) for lane in range(32) for r in range(nregs(shape, types)[1]) for j in range(per_reg(a))]
    W = len(slots)
    words = np.zeros((W, 32, IN_WORDS), dtype=np.uint32)
    B = np.zeros((1, k, n), dtype=np.uint64)
    for kk in range(k):
        for nn in range(7):
            B[0, kk, nn] = one(b, (kk >> nn) & 1)
        B[0, kk, 7] = one(b, 1)
    base = registers(shape, types, np.zeros((1, m, kc), dtype=np.uint64), B, np.zeros((1, m, n), dtype=np.uint64),
                     np.full((1, 32), 0x44444444, dtype=np.uint32))
    words[:] = base[0]
    for w, (lane, r, j) in enumerate(slots):
        words[w, lane, A0 + r] = np.uint32(one(a, 1) << (j * TYPES[a]))
    return words, np.array(slots, dtype=np.int32)


def chunk_of(t, kk):
    """(chunk, unit position in it) of dense column kk."""
    u = unit(t)
    units = int(kk / u) if u < 1 else kk // u
    return units // 4, units % 4


def nibble_inputs(shape, types):
    m, n, k = dims(shape)
    d, a, b, c = types
    kc = k // 2
    chunks = chunk_of(a, k - 1)[0] + 1
    halves = (chunks + 7) // 8
    A = np.zeros((1, m, kc), dtype=np.uint64) + np.uint64(one(a, 1))
    cases = [(h, lane, p) for h in range(halves) for lane in range(32) for p in range(8)]
    W = len(cases)
    words = np.zeros((W, 32, IN_WORDS), dtype=np.uint32)
    for h in range(halves):
        B = np.zeros((1, k, n), dtype=np.uint64)
        for kk in range(k):
            ch, pos = chunk_of(a, kk)
            if ch // 8 == h:
                B[0, kk, ch % 8] = one(b, pos + 1)
        base = registers(shape, types, A, B, np.zeros((1, m, n), dtype=np.uint64),
                         np.full((1, 32), 0x44444444, dtype=np.uint32))
        for w, (hh, lane, p) in enumerate(cases):
            if hh == h:
                words[w] = base[0]
                words[w, lane, E0] = np.uint32((0x44444444 & ~(0xF << (4 * p))) | (0xE << (4 * p)))
    return words, np.array(cases, dtype=np.int32)


def values_inputs(shape, types):
    """Every nibble of every lane the same value v (16 warps, times the halves of the chunks):
    what each metadata value, valid or not, selects. A chunk's compressed elements hold 1 and 5
    (4-bit: units of two elements, 1 1 7 7), B[k][n] = w(position of k's unit) if k's chunk is
    8 h + n, w = 1, 2, 4, 8 (s4: 1, 2, 4, -8): D tells both indices apart."""
    m, n, k = dims(shape)
    d, a, b, c = types
    kc = k // 2
    chunks = chunk_of(a, k - 1)[0] + 1
    halves = (chunks + 7) // 8
    per_chunk = kc // chunks
    av = {1: [1, 5], 4: [1, 1, 7, 7], 2: [1, 5]}.get(per_chunk, [1])
    if a == "tf32":
        av = [1]
    A = np.zeros((1, m, kc), dtype=np.uint64)
    for cc in range(kc):
        A[0, :, cc] = one(a, av[cc % per_chunk])
    wts = [1, 2, 4, -8] if b == "s4" else [1, 2, 4, 8]
    cases = [(h, v) for h in range(halves) for v in range(16)]
    words = np.zeros((len(cases), 32, IN_WORDS), dtype=np.uint32)
    for h in range(halves):
        B = np.zeros((1, k, n), dtype=np.uint64)
        for kk in range(k):
            ch, pos = chunk_of(a, kk)
            if ch // 8 == h:
                B[0, kk, ch % 8] = one(b, wts[pos]) if b in FLOATS else wts[pos] & ((1 << TYPES[b]) - 1)
        for w, (hh, v) in enumerate(cases):
            if hh == h:
                E = np.full((1, 32), v * 0x11111111, dtype=np.uint32)
                words[w] = registers(shape, types, A, B, np.zeros((1, m, n), dtype=np.uint64), E)[0]
    return words, np.array(cases, dtype=np.int32)


# representative paths of the layout experiments: the ordered variant's first form of each
# (shape, A type class), every selector
LAYOUT_FORMS = ["m16n8k16.row.col.f32.f16.f16.f32", "m16n8k32.row.col.f32.f16.f16.f32",
                "m16n8k32.row.col.f16.f16.f16.f16",
                "m16n8k16.row.col.f32.bf16.bf16.f32", "m16n8k32.row.col.f32.bf16.bf16.f32",
                "m16n8k8.row.col.f32.tf32.tf32.f32", "m16n8k16.row.col.f32.tf32.tf32.f32",
                "m16n8k64.row.col.f32.e4m3.e4m3.f32",
                "m16n8k32.row.col.s32.s8.s8.s32", "m16n8k64.row.col.s32.u8.u8.s32",
                "m16n8k64.row.col.s32.s4.s4.s32", "m16n8k128.row.col.s32.u4.u4.s32"]


def layout_paths(variants=VARIANTS[:1]):
    P = paths()
    out = []
    for y, (op, shape, types, sel) in enumerate(P):
        if any(op.startswith(v + ".") for v in variants) and any(op.endswith(f) for f in LAYOUT_FORMS):
            out.append(y)
    return out


def risky(path):
    """Selectors ptxas takes but the ISA does not list (f32 m16n8k32 f16 with 2 or 3)."""
    op, shape, types, sel = path
    return shape == "m16n8k32" and types[1] == "f16" and sel >= 2


def blocks(W, only=None):
    """Every experiment's warps: [(group, kind, path, inputs (N, 32, IN_WORDS))]. Groups run as
    separate launches, saved one after the other (a fault loses only the later ones): 0 the
    layouts, 1 the campaign, 2 every metadata value, 3 the selectors the ISA does not list."""
    P = paths()
    out = []
    if only is not None:  # a larger campaign over some paths (digests only)
        for y in only:
            op, shape, types, sel = P[y]
            out.append((1, "camp", y, camp_inputs(y, shape, types, W if types[1] in FLOATS else W // 2)))
        return out
    for y in layout_paths():
        op, shape, types, sel = P[y]
        if sel == 0:
            out.append((0, "onehot", y, onehot_inputs(shape, types)[0]))
        out.append((3 if risky(P[y]) else 0, "nibble", y, nibble_inputs(shape, types)[0]))
    for y, (op, shape, types, sel) in enumerate(P):
        w = W if types[1] in FLOATS else W // 2
        out.append((3 if risky(P[y]) else 1, "camp", y, camp_inputs(y, shape, types, w)))
    for y in layout_paths(VARIANTS):
        op, shape, types, sel = P[y]
        if sel == 0:
            out.append((2, "values", y, values_inputs(shape, types)[0]))
    return out


def launch_arrays(bl, wpc=WPC):
    """Inputs padded to whole CTAs of `wpc` warps, the path table, and each block's first warp."""
    inp, starts, tab, total = [], [], [], 0
    for g, kind, y, words in bl:
        pad = (-len(words)) % wpc
        starts.append(total)
        # padding warps repeat the block's first (ptxrun stops at undefined metadata, like zeros)
        filler = words[:1].repeat(pad, axis=0) if len(words) else np.zeros((pad, 32, IN_WORDS), dtype=np.uint32)
        inp.append(np.concatenate([words, filler]))
        tab += [y] * ((len(words) + pad) // wpc)
        total += len(words) + pad
    return np.concatenate(inp), np.array(tab, dtype=np.uint32), starts


def digests(out):
    """One uint64 per warp: wrapping sum of splitmix64(position << 32 | word)."""
    pos = np.arange(32 * OUT_WORDS, dtype=np.uint64).reshape(32, OUT_WORDS) << np.uint64(32)
    h = splitmix(pos[None] | out.astype(np.uint64))
    with np.errstate(over="ignore"):
        return h.sum(axis=(1, 2), dtype=np.uint64)


RAW_CAMP = 48  # raw D of the first warps of every campaign path (float forms: 132)


def tool(name):
    import shutil
    for p in (shutil.which(name), f"/usr/local/cuda/bin/{name}", f"/usr/local/cuda-13.0/bin/{name}"):
        if p and os.path.exists(p):
            return p
    return name


def sass(tmp):
    import subprocess
    try:
        sp, sc = os.path.join(tmp, "sass.ptx"), os.path.join(tmp, "sass.cubin")
        with open(sp, "w") as f:
            f.write(sass_ptx())
        subprocess.run([tool("ptxas"), "-arch=sm_90a", sp, "-o", sc], check=True, timeout=60, capture_output=True)
        s = subprocess.run([tool("cuobjdump"), "-sass", sc], capture_output=True, text=True, timeout=60)
        return s.stdout
    except Exception as e:  # keep the measurements whatever happens here
        return f"failed: {e}"


def collect(res, bl, starts, out):
    P = paths()
    for (g, kind, y, words), s in zip(bl, starts):
        o = out[s:s + len(words)]
        if kind == "camp":
            res[f"digest_{y}"] = digests(o)
            res[f"raw_{y}"] = o[:RAW_CAMP if P[y][2][1] not in FLOATS else 132]
        else:
            res[f"{kind}_{y}"] = o


def save(out_path, res):
    np.savez_compressed(out_path, **res)
    if os.path.getsize(out_path) > 11_000_000:  # stay under the 12 MB the batch brings back
        small = {k: (v[:48] if k.startswith("raw_") else v) for k, v in res.items()}
        np.savez_compressed(out_path, **small)


def gpu(out_path, W, dry, only=None):
    import tempfile
    import time
    t0 = time.time()
    bl = blocks(W, only)
    print(f"generated {sum(len(b[3]) for b in bl)} warps, {len(paths())} paths in {time.time() - t0:.1f}s", flush=True)
    res = {"paths": np.array([p[0] + f" sel {p[3]}" for p in paths()]), "warps_arg": np.array(W)}
    if only is not None:
        res["only"] = np.array(only)
    tmp = tempfile.mkdtemp()
    if not dry:
        import cupy as cp
        with open(os.path.join(tmp, "sp_probe.ptx"), "w") as f:
            f.write(ptx())
        fn = cp.RawModule(path=os.path.join(tmp, "sp_probe.ptx")).get_function("sp_probe")
    res["sass"] = np.array(sass(tmp) if not dry else "")
    print(f"sass: {len(str(res['sass']))} chars", flush=True)
    save(out_path, res)
    for group in range(4):
        gb = [b for b in bl if b[0] == group]
        if not gb:
            continue
        inp, tab, starts = launch_arrays(gb)
        if dry:
            out = np.zeros((len(inp), 32, OUT_WORDS), dtype=np.uint32)
        else:
            try:
                d_in, d_tab = cp.asarray(inp), cp.asarray(tab)
                d_out = cp.zeros((len(inp), 32, OUT_WORDS), dtype=cp.uint32)
                fn((len(tab),), (32 * WPC,), (d_in, d_out, d_tab))
                cp.cuda.Device().synchronize()
                out = cp.asnumpy(d_out)
                del d_in, d_out, d_tab
            except Exception as e:
                print(f"group {group} failed: {e}", flush=True)
                res[f"failed_{group}"] = np.array(str(e))
                save(out_path, res)
                break
        collect(res, gb, starts, out)
        res[f"done_{group}"] = np.array(len(inp))
        save(out_path, res)
        print(f"group {group}: {len(inp)} warps, saved ({os.path.getsize(out_path)} bytes) at {time.time() - t0:.1f}s",
              flush=True)
    zero = [k for k in res if k.startswith("raw_") and (res[k] == 0).all()]
    print(f"campaign paths with all-zero raw D: {len(zero)}")


# ---- ptxrun ----
def meta_lanes(shape, a):
    m, n, k = dims(shape)
    return max(1, 8 * k // int(4 * unit(a)) // 32)


def nibbles(shape, a, E, sel):
    """(W, 16, chunks) metadata nibbles the model reads from metadata words E (W, 32)."""
    m, n, k = dims(shape)
    chunks = k // int(4 * unit(a))
    L = meta_lanes(shape, a)
    out = np.zeros((E.shape[0], 16, chunks), dtype=np.uint32)
    for r in range(16):
        for c in range(chunks):
            if TYPES[a] >= 16:  # four chunks of rows g and g + 8 per lane
                lane, bit = 4 * (r % 8) + L * sel + c // 4, 16 * (r // 8) + 4 * (c % 4)
            else:  # eight chunks of one row per lane
                lane, bit = 4 * (r % 8) + L * sel + 2 * (c // 8) + r // 8, 4 * (c % 8)
            out[:, r, c] = (E[:, lane] >> np.uint32(bit)) & np.uint32(0xF)
    return out


def valid(shape, a, ordered, E, sel):
    """Per warp: whether every nibble read is defined by the ISA."""
    nb = nibbles(shape, a, E, sel)
    if a == "tf32":
        ok = (nb == 0x4) | (nb == 0xE)
    else:
        i0, i1 = nb & 3, nb >> 2
        ok = (i0 != i1) & ((i0 < i1) | (not ordered))
    return ok.all(axis=(1, 2))


def write_launch(work, inp, tab, wpc=WPC):
    os.makedirs(os.path.join(work, "inputs"), exist_ok=True)
    with open(os.path.join(work, "kernel.ptx"), "w") as f:
        f.write(ptx())
    inp.tofile(os.path.join(work, "inputs", "inp.bin"))
    tab.tofile(os.path.join(work, "inputs", "tab.bin"))
    with open(os.path.join(work, "launch.toml"), "w") as f:
        f.write(f'kernel = "kernel.ptx"\nentry = "sp_probe"\ngrid = [{len(tab)}, 1]\nblock = {32 * wpc}\n\n'
                f'[[params]]\nbuffer = "inp"\ntype = "u32"\nlen = {inp.size}\ninit = "inputs/inp.bin"\n\n'
                f'[[params]]\nbuffer = "out"\ntype = "u32"\nlen = {len(inp) * 32 * OUT_WORDS}\ninit = "zeros"\n\n'
                f'[[params]]\nbuffer = "tab"\ntype = "u32"\nlen = {tab.size}\ninit = "inputs/tab.bin"\n\n'
                f'[outputs]\nout = "out/out.bin"\n')


def cpu(ptxrun, result, resdir, only=None):
    """Runs every experiment whose metadata the ISA defines in ptxrun and compares it with the
    GPU's: digests for the campaign, raw D for the rest. Warps with undefined metadata are left
    out (ptxrun stops at them: `invalid-sparse-metadata`)."""
    import subprocess
    res = np.load(result)
    W = int(res["warps_arg"])
    P = paths()
    big = [int(v) for v in res["only"]] if "only" in res.files else None
    bl = [b for b in blocks(W, big) if f"done_{b[0]}" in res.files and (only is None or b[2] in only)]
    keep = []
    for g, kind, y, words in bl:
        op, shape, types, sel = P[y]
        ok = valid(shape, types[1], op.startswith(VARIANTS[0] + "."), words[:, :, E0], sel)
        keep.append(np.nonzero(ok)[0])
    work = os.path.join(resdir, "cpu")
    inp, tab, starts = launch_arrays([(g, k, y, w[kp]) for (g, k, y, w), kp in zip(bl, keep)])
    write_launch(work, inp, tab)
    subprocess.run([ptxrun, "run", "--no-check", os.path.join(work, "launch.toml")], check=True)
    out = np.fromfile(os.path.join(work, "out", "out.bin"), dtype=np.uint32).reshape(len(inp), 32, OUT_WORDS)
    rows, bad_total = {}, 0
    for (g, kind, y, words), kp, s in zip(bl, keep, starts):
        mine = out[s:s + len(kp)]
        if kind == "camp":
            theirs = res[f"digest_{y}"][kp]
            bad = np.nonzero(digests(mine) != theirs)[0]
            raw = res[f"raw_{y}"]
            for w in bad[:2]:
                if kp[w] < len(raw):
                    diff = np.nonzero(mine[w] != raw[kp[w]])
                    for lane, word in list(zip(*diff))[:3]:
                        print(f"    {P[y][0]} sel {P[y][3]} warp {kp[w]} ({REGIMES[kp[w] % len(REGIMES)]}) lane {lane} "
                              f"word {word}: ptxrun {mine[w, lane, word]:#010x} H100 {raw[kp[w], lane, word]:#010x}")
        else:
            theirs = res[f"{kind}_{y}"][kp]
            bad = np.nonzero((mine != theirs).any(axis=(1, 2)))[0]
            for w in bad[:1]:
                diff = np.nonzero(mine[w] != theirs[w])
                for lane, word in list(zip(*diff))[:3]:
                    print(f"    {kind} {P[y][0]} sel {P[y][3]} case {kp[w]} lane {lane} word {word}: "
                          f"ptxrun {mine[w, lane, word]:#010x} H100 {theirs[w, lane, word]:#010x}")
        key = (kind, P[y][0])
        r = rows.setdefault(key, [0, 0, 0, set()])
        r[0] += len(kp)
        r[1] += len(words) - len(kp)
        r[2] += len(bad)
        r[3].add(P[y][3])
        bad_total += len(bad)
    print("| experiment | form | selectors | warps | left out (undefined metadata) | mismatching warps |")
    print("|---|---|---|---|---|---|")
    for (kind, op), (n, skipped, bad, sels) in rows.items():
        print(f"| {kind} | `{op}` | {','.join(map(str, sorted(sels)))} | {n} | {skipped} | {bad} |")
    print(f"total mismatching warps: {bad_total}")
    return bad_total


def sample(result, sdir):
    """The golden sample: per campaign path, two warps (float forms) or one (integer forms) whose
    metadata the ISA defines, in different regimes from path to path, with the GPU's raw D."""
    res = np.load(result)
    W = int(res["warps_arg"])
    P = paths()
    chosen, expect = [], []
    for y, (op, shape, types, sel) in enumerate(P):
        if f"raw_{y}" not in res.files:
            continue
        raw = res[f"raw_{y}"]
        words = camp_inputs(y, shape, types, W if types[1] in FLOATS else W // 2)[:len(raw)]
        ok = np.nonzero(valid(shape, types[1], op.startswith(VARIANTS[0] + "."), words[:, :, E0], sel))[0]
        ok = sorted(ok, key=lambda w: ((w - y) % len(REGIMES), w))[:2 if types[1] in FLOATS else 1]
        chosen.append((0, "camp", y, words[ok]))
        expect.append(raw[ok])
    inp, tab, starts = launch_arrays(chosen, 1)
    out = np.zeros((len(inp), 32, OUT_WORDS), dtype=np.uint32)
    for s, e in zip(starts, expect):
        out[s:s + len(e)] = e
    write_launch(sdir, inp, tab, 1)
    os.makedirs(os.path.join(sdir, "expected"), exist_ok=True)
    out.tofile(os.path.join(sdir, "expected", "out.bin"))
    with open(os.path.join(sdir, "launch.toml"), "a") as f:
        f.write('\n[expect]\noutputs = { out = "expected/out.bin" }\n')
    print(f"{len(chosen)} paths, {len(inp)} warps")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "ptx":
        with open(sys.argv[2], "w") as f:
            f.write(ptx())
    elif cmd == "sassptx":
        with open(sys.argv[2], "w") as f:
            f.write(sass_ptx())
    elif cmd == "sample":
        sample(sys.argv[2], sys.argv[3])
    elif cmd == "cpu":
        only = None
        if len(sys.argv) > 5:
            only = {int(v) for v in sys.argv[5].split(",")}
        sys.exit(1 if cpu(sys.argv[2], sys.argv[3], sys.argv[4], only) else 0)
    elif cmd == "gpu":
        only = os.environ.get("SP_ONLY")
        gpu(sys.argv[2], int(os.environ.get("SP_WARPS", "2048")), "--dry" in sys.argv,
            [int(v) for v in only.split(",")] if only else None)
