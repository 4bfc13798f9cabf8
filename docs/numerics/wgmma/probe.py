#!/usr/bin/env python3
"""The wgmma.mma_async campaign (see README.md beside this file).

One PTX kernel holds every variant of VARIANTS (form, A from registers or shared memory,
transpose and negate immediates): CTA row y runs variant y with one warpgroup. Each CTA copies a
48 KiB image of element bit patterns into shared memory, loads its A registers and accumulators
from pools, builds its descriptors from per-CTA parameters (random swizzle, leading and stride
byte offsets, start address; half of them the canonical CUTLASS layouts), runs one wgmma with
scale-d from the parameters, waits, and stores D. Operands come from the mma campaign's
generator (../mma/probe.py: counter-based splitmix64, eleven regimes).

  probe.py ptx OUT.ptx             write the kernel
  probe.py gpu OUT.ptx CTAS DIR    (GPU + CuPy) run it, write DIR/result.npz (a digest per CTA,
                                   the raw D of the first 22 CTAs of every variant)
  probe.py cpu PTXRUN CTAS DIR     run the same kernel in ptxrun, compare, print the table
  probe.py sample C1,C2 DIR SAMPLE write a golden sample of CTAs C1, C2, ... (< RAW_CTAS) of every variant
                                   (Y1:C1,Y2:C2,...: CTA C1 of variant Y1, ... one CTA row each)
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

def _mma_probe():
    """The mma campaign's operand generator (../mma/probe.py)."""
    import importlib.util
    path = os.path.join(HERE, "mma_probe.py")  # a copy beside this file (a probe folder)
    if not os.path.exists(path):
        path = os.path.join(HERE, "..", "mma", "probe.py")
    spec = importlib.util.spec_from_file_location("mma_probe", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


mp = _mma_probe()

IMG = 49152  # bytes of shared memory image
APOOL, CPOOL, PARAMS, META = 512, 4096, 8, 128  # words
IN_WORDS = IMG // 4 + APOOL + CPOOL + PARAMS + META
RAW_CTAS = int(os.environ.get("RAW_CTAS", "22"))

# (form, A in registers, trans-a, trans-b, scale-a, scale-b[, sparsity selector of a .sp form])
VARIANTS = [
    ("m64n256k16.f32.f16.f16", False, 0, 0, 1, 1),
    ("m64n64k16.f32.f16.f16", False, 1, 0, -1, 1),
    ("m64n64k16.f32.f16.f16", False, 0, 1, 1, -1),
    ("m64n136k16.f32.f16.f16", False, 1, 1, 1, 1),
    ("m64n8k16.f32.f16.f16", False, 0, 0, 1, 1),
    ("m64n128k16.f32.f16.f16", True, 0, 0, 1, 1),
    ("m64n64k16.f32.f16.f16", True, 0, 1, -1, -1),
    ("m64n256k16.f16.f16.f16", False, 0, 0, 1, 1),
    ("m64n64k16.f16.f16.f16", False, 1, 1, 1, 1),
    ("m64n32k16.f16.f16.f16", True, 0, 1, 1, 1),
    ("m64n8k16.f16.f16.f16", False, 0, 1, -1, 1),
    ("m64n256k16.f32.bf16.bf16", False, 0, 0, 1, 1),
    ("m64n96k16.f32.bf16.bf16", False, 1, 0, 1, 1),
    ("m64n64k16.f32.bf16.bf16", True, 0, 0, -1, 1),
    ("m64n16k16.f32.bf16.bf16", False, 0, 1, 1, -1),
    ("m64n256k8.f32.tf32.tf32", False, 0, 0, 1, 1),
    ("m64n64k8.f32.tf32.tf32", False, 0, 0, -1, 1),
    ("m64n40k8.f32.tf32.tf32", True, 0, 0, 1, -1),
    ("m64n8k8.f32.tf32.tf32", False, 0, 0, 1, 1),
    ("m64n256k32.f32.e4m3.e4m3", False, 0, 0, 1, 1),
    ("m64n64k32.f32.e4m3.e4m3", True, 0, 0, 1, 1),
    ("m64n64k32.f32.e5m2.e4m3", False, 0, 0, -1, 1),
    ("m64n128k32.f16.e4m3.e5m2", False, 0, 0, 1, 1),
    ("m64n32k32.f16.e5m2.e5m2", True, 0, 0, 1, -1),
    ("m64n256k32.s32.s8.s8", False, 0, 0, 1, 1),
    ("m64n24k32.s32.s8.s8", True, 0, 0, 1, 1),
    ("m64n64k32.s32.u8.s8.satfinite", False, 0, 0, 1, 1),
    ("m64n128k32.s32.s8.u8.satfinite", False, 0, 0, 1, 1),
    ("m64n16k32.s32.u8.u8", True, 0, 0, 1, 1),
    ("m64n256k256.s32.b1.b1.and.popc", False, 0, 0, 1, 1),
    ("m64n64k256.s32.b1.b1.and.popc", True, 0, 0, 1, 1),
    # wgmma.mma_async.sp: A compressed to half of K, random metadata (valid or not)
    ("m64n128k32.f32.f16.f16", False, 0, 0, 1, 1, 0),
    ("m64n64k32.f16.f16.f16", True, 0, 1, -1, 1, 1),
    ("m64n256k32.f32.bf16.bf16", False, 1, 0, 1, -1, 0),
    ("m64n32k32.f32.bf16.bf16", False, 1, 1, 1, 1, 1),
    ("m64n8k32.f32.f16.f16", True, 0, 0, 1, 1, 0),
    # sparse tf32 (1:2, k16), e4m3/e5m2 and s8/u8 (2:4, k64; selector 0 only)
    ("m64n64k16.f32.tf32.tf32", False, 0, 0, 1, 1, 0),
    ("m64n32k16.f32.tf32.tf32", True, 0, 0, -1, 1, 1),
    ("m64n256k16.f32.tf32.tf32", False, 0, 0, 1, -1, 1),
    ("m64n8k16.f32.tf32.tf32", True, 0, 0, 1, 1, 0),
    ("m64n128k64.f32.e4m3.e4m3", False, 0, 0, 1, 1, 0),
    ("m64n64k64.f32.e5m2.e4m3", True, 0, 0, -1, 1, 0),
    ("m64n32k64.f32.e4m3.e5m2", False, 0, 0, 1, -1, 0),
    ("m64n16k64.f32.e5m2.e5m2", True, 0, 0, 1, 1, 0),
    ("m64n256k64.f16.e4m3.e4m3", False, 0, 0, 1, 1, 0),
    ("m64n64k64.f16.e5m2.e4m3", False, 0, 0, 1, -1, 0),
    ("m64n40k64.f16.e4m3.e5m2", True, 0, 0, -1, -1, 0),
    ("m64n8k64.f16.e5m2.e5m2", False, 0, 0, 1, 1, 0),
    ("m64n128k64.s32.s8.s8", False, 0, 0, 1, 1, 0),
    ("m64n24k64.s32.s8.u8.satfinite", True, 0, 0, 1, 1, 0),
    ("m64n64k64.s32.u8.s8.satfinite", False, 0, 0, 1, 1, 0),
    ("m64n16k64.s32.u8.u8", True, 0, 0, 1, 1, 0),
    ("m64n128k64.s32.u8.u8.satfinite", False, 0, 0, 1, 1, 0),
    ("m64n8k64.s32.s8.s8", True, 0, 0, 1, 1, 0),
    ("m64n32k64.s32.s8.u8", False, 0, 0, 1, 1, 0),
]

if os.environ.get("PROBE_ONLY"):  # debugging: a subset of the variants, by index
    VARIANTS = [VARIANTS[int(i)] for i in os.environ["PROBE_ONLY"].split(",")]


def sparse(v):
    return len(v) > 6


def parse(form):
    words = form.split(".")
    m, rest = words[0][1:].split("n")
    n, k = rest.split("k")
    d, a, b = [w for w in words[1:] if w in mp.TYPES]
    return int(n), int(k), d, a, b


def is_int(t):
    return t in ("s8", "u8", "b1")


def d_regs(form):
    n, k, d, a, b = parse(form)
    return n // 2 if d != "f16" else n // 4


# ---- the descriptor model (for the bounds of random layouts only; the H100 is the reference) ----
def chunk_addr(start, lbo, sbo, swz, mn_major, line, step):
    if not mn_major:
        # swizzled rows hold swz bytes of K; a longer K (sparse B) continues LBO further
        per = swz // 16
        off = (line % 8) * 16 + (line // 8) * sbo + step * lbo if swz == 0 else \
            (line % 8) * swz + (line // 8) * sbo + (step % per) * 16 + (step // per) * lbo
    elif swz == 0:
        off = line * sbo + (step % 8) * 16 + (step // 8) * lbo
    else:
        per = swz // 16
        off = (line % per) * 16 + (line // per) * lbo + (step % 8) * swz + (step // 8) * sbo
    return start + off


def footprint(desc, mn_major, rows, k_elems, k_bytes=32):
    start, lbo, sbo, swz = desc
    if mn_major:
        return max(chunk_addr(start, lbo, sbo, swz, True, m, k) for m in range(rows // 8) for k in range(k_elems)) + 16
    return max(chunk_addr(start, lbo, sbo, swz, False, r, c) for r in range(rows) for c in range(k_bytes // 16)) + 16


def encode(desc):
    start, lbo, sbo, swz = desc
    mode = {0: 0, 128: 1, 64: 2, 32: 3}[swz]
    return (start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (mode << 62)


def pick_desc(rng, rows, k_elems, mn_major, limit, k_bytes=32):
    """A random layout of `rows` x K: canonical or random offsets, inside `limit` bytes."""
    for _ in range(1000):
        swz = [0, 32, 64, 128][int(rng.ints((1,), 0, 4)[0])]
        if rng.coin((1,), 0.5)[0]:  # canonical
            if not mn_major:
                if swz == 0:
                    lbo, sbo = 128, 256
                else:
                    lbo, sbo = 16, 8 * swz
                start = 1024 * int(rng.ints((1,), 0, 8)[0]) + (32 * int(rng.ints((1,), 0, max(1, swz // 32))[0]) if swz else 0)
            else:
                per = max(1, swz // 16)
                if swz == 0:
                    sbo, lbo = 128, 128 * (rows // 8)
                else:
                    lbo = 8 * swz
                    sbo = lbo * (-(-rows // (8 * per)))
                start = 1024 * int(rng.ints((1,), 0, 8)[0])
        else:
            start = 16 * int(rng.ints((1,), 0, 512)[0])
            lbo = 16 * int(rng.ints((1,), 0, 160)[0])
            sbo = 16 * int(rng.ints((1,), 0, 160)[0])
        desc = (start, lbo, sbo, swz)
        if lbo < 2 ** 18 and sbo < 2 ** 18 and footprint(desc, mn_major, rows, k_elems, k_bytes) <= limit:
            return desc
    raise RuntimeError("no layout fits")


# ---- operands ----
def pack(t, el, per_word):
    """Elements (..., per_word * count) of bit width TYPES[t] into uint32 words."""
    bits = mp.TYPES[t] if t != "tf32" else 32
    el = el.reshape(el.shape[:-1] + (-1, per_word)).astype(np.uint64)
    w = np.zeros(el.shape[:-1], dtype=np.uint64)
    for j in range(per_word):
        w |= (el[..., j] & np.uint64((1 << bits) - 1)) << np.uint64(j * bits)
    return w.astype(np.uint32)


def cta_inputs(y, variant, ctas):
    form, a_regs, ta, tb, sa, sb = variant[:6]
    n, k, d, a, b = parse(form)
    ka = k // 2 if sparse(variant) else k  # A's K (compressed)
    words = np.zeros((ctas, IN_WORDS), dtype=np.uint32)
    bits_of = lambda t: 32 if t == "tf32" else mp.TYPES[t]
    for c in range(ctas):
        regime = mp.REGIMES[c % len(mp.REGIMES)]
        rng = mp.Rng(7_000_000 + y * 1000 + c)
        # the image: elements of A's type in the first half, B's in the second
        per_a, per_b = 32 // bits_of(a), 32 // bits_of(b)
        half = IMG // 8  # words per half
        ea = mp.elements(a, rng, (half * per_a,), regime, "a")
        eb = mp.elements(b, rng, (half * per_b,), regime, "b")
        if regime == "nans" and a in mp.FLOATS:
            ea = np.where(rng.coin(ea.shape, 0.02), mp.with_nans(a, rng, ea, None), ea)
            eb = np.where(rng.coin(eb.shape, 0.02), mp.with_nans(b, rng, eb, None), eb)
        img = np.concatenate([pack(a, ea, per_a), pack(b, eb, per_b)])
        words[c, :IMG // 4] = img
        apool = mp.elements(a, rng, (APOOL * per_a,), regime, "a")
        words[c, IMG // 4:IMG // 4 + APOOL] = pack(a, apool, per_a)
        ct = "f16" if d == "f16" else ("s32" if d == "s32" else "f32")
        per_c = 2 if d == "f16" else 1
        cpool = mp.elements(ct, rng, (CPOOL * per_c,), regime, "c")
        if regime == "nans" and ct in mp.FLOATS:
            cpool = np.where(rng.coin(cpool.shape, 0.05), mp.with_nans(ct, rng, cpool, None), cpool)
        words[c, IMG // 4 + APOOL:IMG // 4 + APOOL + CPOOL] = pack(ct, cpool, per_c)
        # descriptors: A's 64 x K tile and B's N x K
        da = pick_desc(rng, 64, ka, bool(ta), IMG - 16)
        db = pick_desc(rng, n, k, bool(tb), IMG - 16, k * bits_of(b) // 8)
        p = IMG // 4 + APOOL + CPOOL
        ea_, eb_ = encode(da), encode(db)
        scale_d = int(rng.ints((1,), 0, 4)[0] != 0)  # 3 in 4 accumulate
        words[c, p:p + 5] = [ea_ & 0xFFFFFFFF, ea_ >> 32, eb_ & 0xFFFFFFFF, eb_ >> 32, scale_d]
        if sparse(variant):  # metadata: random 2-bit indices, ordered (idx0 < idx1) in 3 CTAs of 4
            meta = rng.bits((META,)).astype(np.uint64) & np.uint64(0xFFFFFFFF)
            if c % 4:
                # (0,1) (0,2) (0,3) (1,2) (1,3) (2,3); tf32 (1:2): halves 0-1 or 2-3 of two elements
                pairs = np.array([0x4, 0xE] if a == "tf32" else [0x4, 0x8, 0xC, 0x9, 0xD, 0xE], dtype=np.uint64)
                pick = rng.ints((META, 8), 0, len(pairs))
                meta = np.zeros(META, dtype=np.uint64)
                for i in range(8):
                    meta |= pairs[pick[:, i]] << np.uint64(4 * i)
            words[c, p + PARAMS:p + PARAMS + META] = meta.astype(np.uint32)
    return words


def all_inputs(ctas):
    return np.stack([cta_inputs(y, v, ctas) for y, v in enumerate(VARIANTS)])  # (V, ctas, IN_WORDS)


def out_words(ctas):
    """Per variant: (offset in words, words per CTA)."""
    offs, at = [], 0
    for v in VARIANTS:
        per = 128 * d_regs(v[0])
        offs.append((at, per))
        at += per * ctas
    return offs, at


# ---- the kernel ----
def ptx(ctas):
    offs, _ = out_words(ctas)
    L = [".version 8.4", ".target sm_90a", ".address_size 64", "",
         ".visible .entry wgmma_probe(.param .u64 inp, .param .u64 out)", ".maxntid 128, 1, 1", "{",
         "  .reg .pred %p<4>;", "  .reg .b32 %r<64>;", "  .reg .b64 %rd<16>;",
         "  .reg .f32 %f<130>;", "  .reg .b32 %d<130>;", "  .reg .b32 %a<4>;",
         "  .shared .align 1024 .b8 sm[49152];",
         "  ld.param.u64 %rd1, [inp];", "  ld.param.u64 %rd2, [out];",
         "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;",
         "  mov.u32 %r1, %tid.x;", "  mov.u32 %r2, %ctaid.x;", "  mov.u32 %r3, %ctaid.y;",
         "  mov.u32 %r4, %nctaid.x;", "  mad.lo.s32 %r5, %r3, %r4, %r2;",
         f"  mul.wide.u32 %rd3, %r5, {IN_WORDS * 4};", "  add.s64 %rd3, %rd1, %rd3;",
         "  mov.u32 %r6, sm;", "  shl.b32 %r7, %r1, 4;",
         "  cvt.u64.u32 %rd4, %r7;", "  add.s64 %rd4, %rd3, %rd4;", "  add.u32 %r8, %r6, %r7;"]
    for i in range(IMG // 2048):
        L += [f"  ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd4+{i * 2048}];",
              f"  st.shared.v4.u32 [%r8+{i * 2048}], {{%r10, %r11, %r12, %r13}};"]
    p = (IMG // 4 + APOOL + CPOOL) * 4
    L += [f"  ld.global.u64 %rd5, [%rd3+{p}];", f"  ld.global.u64 %rd6, [%rd3+{p + 8}];",
          f"  ld.global.u32 %r14, [%rd3+{p + 16}];", "  setp.ne.u32 %p1, %r14, 0;",
          "  shr.u32 %r15, %r6, 4;", "  cvt.u64.u32 %rd7, %r15;",
          "  add.s64 %rd5, %rd5, %rd7;", "  add.s64 %rd6, %rd6, %rd7;",
          # A pool: lane t's 4 words at t*4; C pool: (t*dregs + r) mod CPOOL
          f"  shl.b32 %r16, %r1, 4;", f"  add.u32 %r16, %r16, {IMG};", "  cvt.u64.u32 %rd8, %r16;",
          "  add.s64 %rd8, %rd3, %rd8;"]
    for j in range(4):
        L.append(f"  ld.global.b32 %a{j}, [%rd8+{4 * j}];")
    for y in range(len(VARIANTS)):
        L += [f"  setp.eq.u32 %p2, %r3, {y};", f"  @%p2 bra V{y};"]
    L.append("  ret;")
    for y, v in enumerate(VARIANTS):
        form, a_regs, ta, tb, sa, sb = v[:6]
        n, k, d, a, b = parse(form)
        nd = d_regs(form)
        f32 = d == "f32"
        reg = (lambda i: f"%f{i}") if f32 else (lambda i: f"%d{i}")
        ty = "f32" if f32 else "b32"
        off, per = offs[y]
        L += [f"V{y}:", f"  mul.lo.u32 %r20, %r1, {nd};"]
        for i in range(nd):
            L += [f"  add.u32 %r21, %r20, {i};", f"  and.b32 %r21, %r21, {CPOOL - 1};",
                  "  mul.wide.u32 %rd9, %r21, 4;", "  add.s64 %rd9, %rd3, %rd9;",
                  f"  ld.global.{ty} {reg(i)}, [%rd9+{IMG + APOOL * 4}];"]
        L += ["  fence.proxy.async.shared::cta;", "  bar.sync 0;", "  wgmma.fence.sync.aligned;"]
        dl = "{" + ", ".join(reg(i) for i in range(nd)) + "}"
        al = "{%a0, %a1, %a2, %a3}" if a_regs else "%rd5"
        ops = [dl, al, "%rd6", "%p1"]
        op = "wgmma.mma_async"
        if sparse(v):
            op = "wgmma.mma_async.sp"
            meta_at = (IMG // 4 + APOOL + CPOOL + PARAMS) * 4
            L += ["  shl.b32 %r23, %r1, 2;", f"  add.u32 %r23, %r23, {meta_at};", "  cvt.u64.u32 %rd11, %r23;",
                  "  add.s64 %rd11, %rd3, %rd11;", "  ld.global.u32 %r24, [%rd11];"]
            ops = [dl, al, "%rd6", "%r24", str(v[6]), "%p1"]
        if not is_int(a):
            ops += [str(sa), str(sb)]
            if a in ("f16", "bf16"):
                ops += ([] if a_regs else [str(ta)]) + [str(tb)]
        L += [f"  {op}.sync.aligned.{form} {', '.join(ops)};",
              "  wgmma.commit_group.sync.aligned;", "  wgmma.wait_group.sync.aligned 0;",
              f"  mad.lo.s32 %r22, %r2, 128, %r1;", f"  mul.lo.u32 %r22, %r22, {nd};",
              f"  add.u32 %r22, %r22, {off};", "  mul.wide.u32 %rd10, %r22, 4;", "  add.s64 %rd10, %rd2, %rd10;"]
        for i in range(nd):
            L.append(f"  st.global.{ty} [%rd10+{4 * i}], {reg(i)};")
        L.append("  ret;")
    L.append("}")
    return "\n".join(L) + "\n"


def split(out, ctas):
    offs, _ = out_words(ctas)
    return [out[o:o + p * ctas].reshape(ctas, p) for o, p in offs]


def digests(rows):
    pos = np.arange(rows.shape[1], dtype=np.uint64) << np.uint64(32)
    h = mp.splitmix(pos[None] | rows.astype(np.uint64))
    with np.errstate(over="ignore"):
        return h.sum(axis=1, dtype=np.uint64)


def gpu(ptx_path, ctas, outdir):
    import cupy as cp
    fn = cp.RawModule(path=ptx_path).get_function("wgmma_probe")
    inp = all_inputs(ctas)
    _, total = out_words(ctas)
    d_in, d_out = cp.asarray(inp), cp.zeros(total, dtype=cp.uint32)
    fn((ctas, len(VARIANTS)), (128,), (d_in, d_out))
    cp.cuda.Device().synchronize()
    out = cp.asnumpy(d_out)
    parts = split(out, ctas)
    os.makedirs(outdir, exist_ok=True)
    np.savez_compressed(os.path.join(outdir, "result.npz"),
                        digests=np.stack([digests(p) for p in parts]),
                        **{f"raw{y}": p[:RAW_CTAS] for y, p in enumerate(parts)})


def write_launch(dirpath, ctas, ptx_name):
    _, total = out_words(ctas)
    with open(os.path.join(dirpath, "launch.toml"), "w") as f:
        f.write(f'kernel = "{ptx_name}"\nentry = "wgmma_probe"\ngrid = [{ctas}, {len(VARIANTS)}]\nblock = 128\n\n'
                f'[[params]]\nbuffer = "inp"\ntype = "u32"\nlen = {len(VARIANTS) * ctas * IN_WORDS}\ninit = "inputs/inp.bin"\n\n'
                f'[[params]]\nbuffer = "out"\ntype = "u32"\nlen = {total}\ninit = "zeros"\n\n'
                f'[outputs]\nout = "out/out.bin"\n')


def cpu(ptxrun, ctas, resdir):
    work = os.path.join(resdir, "cpu")
    os.makedirs(os.path.join(work, "inputs"), exist_ok=True)
    with open(os.path.join(work, "kernel.ptx"), "w") as f:
        f.write(ptx(ctas))
    all_inputs(ctas).tofile(os.path.join(work, "inputs", "inp.bin"))
    write_launch(work, ctas, "kernel.ptx")
    subprocess.run([ptxrun, "run", "--no-check", os.path.join(work, "launch.toml")], check=True)
    out = np.fromfile(os.path.join(work, "out", "out.bin"), dtype=np.uint32)
    parts = split(out, ctas)
    res = np.load(os.path.join(resdir, "result.npz"))
    print("| variant | A | trans a, b | scale a, b | wgmma (CTAs) | dot products | mismatching CTAs |\n|---|---|---|---|---|---|---|")
    bad_total = 0
    for y, v in enumerate(VARIANTS):
        form, a_regs, ta, tb, sa, sb = v[:6]
        n = parse(form)[0]
        nd = d_regs(form)
        if sparse(v):
            form = f"sp {form} sel {v[6]}"
        mine = digests(parts[y])
        bad = np.nonzero(mine != res["digests"][y])[0]
        bad_total += len(bad)
        print(f"| `{form}` | {'registers' if a_regs else 'descriptor'} | {ta}, {tb} | {sa}, {sb} | {ctas} | {ctas * 64 * n} | {len(bad)} |")
        for c in bad[:3]:
            if c < RAW_CTAS:
                raw = res[f"raw{y}"][c]
                diff = np.nonzero(parts[y][c] != raw)[0]
                print(f"    CTA {c} ({mp.REGIMES[c % len(mp.REGIMES)]}): {len(diff)} words differ; first: " +
                      ", ".join(f"lane {i // nd} reg {i % nd}: ptxrun {parts[y][c][i]:#010x} H100 {raw[i]:#010x}" for i in diff[:4]))
    print(f"total mismatching CTAs: {bad_total}")
    return bad_total


def sample(picked, resdir, sdir):
    """A golden sample from CTAs `picked` (among the first RAW_CTAS) of every variant, or, when
    `picked` holds (variant, CTA) pairs, one CTA of each variant named (a CTA row each)."""
    global VARIANTS
    res = np.load(os.path.join(resdir, "result.npz"))
    pairs = picked if isinstance(picked[0], tuple) else [(y, c) for y in range(len(VARIANTS)) for c in picked]
    rows = sorted({y for y, _ in pairs}, key=[y for y, _ in pairs].index)
    ctas = len(pairs) // len(rows)
    inp = np.stack([cta_inputs(y, VARIANTS[y], c + 1)[c] for y, c in pairs])
    out = np.concatenate([res[f"raw{y}"][c] for y, c in pairs])
    VARIANTS = [VARIANTS[y] for y in rows]
    os.makedirs(os.path.join(sdir, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(sdir, "expected"), exist_ok=True)
    with open(os.path.join(sdir, "kernel.ptx"), "w") as f:
        f.write(ptx(ctas))
    inp.tofile(os.path.join(sdir, "inputs", "inp.bin"))
    out.tofile(os.path.join(sdir, "expected", "out.bin"))
    write_launch(sdir, ctas, "kernel.ptx")
    with open(os.path.join(sdir, "launch.toml"), "a") as f:
        f.write('\n[expect]\noutputs = { out = "expected/out.bin" }\n')


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "ptx":
        with open(sys.argv[2], "w") as f:
            f.write(ptx(int(sys.argv[3]) if len(sys.argv) > 3 else 110))
    elif cmd == "gpu":
        gpu(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif cmd == "cpu":
        sys.exit(1 if cpu(sys.argv[2], int(sys.argv[3]), sys.argv[4]) else 0)
    elif cmd == "sample":
        spec = sys.argv[2].split(",")  # C1,C2,...  or  Y1:C1,Y2:C2,...
        picked = [tuple(int(x) for x in p.split(":")) if ":" in p else int(p) for p in spec]
        sample(picked, sys.argv[3], sys.argv[4])
