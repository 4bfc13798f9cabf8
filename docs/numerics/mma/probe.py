#!/usr/bin/env python3
"""The mma.sync numerics campaign (see README.md beside this file).

One PTX kernel holds every form of forms.txt: CTA row y runs form y; each lane loads its A, B
and C registers from `inp` (32 words per lane), executes the `mma`, and stores its D registers
to `out` (8 words per lane). Operands are generated here, identically on both machines, by a
counter-based generator (splitmix64), as element matrices in ten regimes (random, wide exponent
spread, raw bits, cancelling pairs, truncation boundary, subnormals, signed zeros, specials,
near overflow, small integers) and packed into registers through the PTX fragment layouts.

  probe.py ptx OUT.ptx                 write the kernel
  probe.py gpu OUT.ptx WARPS DIR [Y:W,...]  (GPU + CuPy) run it, write DIR/result.npz: a digest per
                                       warp, the raw D of the first 64 warps of every form and of the
                                       warps listed (form Y, warp W)
  probe.py cpu PTXRUN WARPS DIR        run the same kernel in ptxrun, compare digests, print the table
  probe.py sample WARPS DIR SAMPLE     write a golden sample (inputs, launch file, GPU outputs)
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IN_WORDS, OUT_WORDS, WARPS_PER_CTA = 32, 8, 4
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def forms():
    with open(os.path.join(HERE, "forms.txt")) as f:
        return [l.split("#")[0].strip() for l in f if l.split("#")[0].strip()]


def parse(form):
    """(m, n, k, d, a, b, c, suffix words) of an mma opcode."""
    words = form.split(".")
    shape = next(w for w in words if w.startswith("m") and "n" in w and "k" in w)
    m, rest = shape[1:].split("n")
    n, k = rest.split("k")
    types = [w for w in words if w in TYPES]
    return int(m), int(n), int(k), types


# element type -> (bits, register bits)
TYPES = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "e4m3": 8, "e5m2": 8,
         "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1, "s32": 32}
# float formats: (exponent bits, mantissa bits, ieee specials)
FLOATS = {"f16": (5, 10, True), "bf16": (8, 7, True), "tf32": (8, 10, True), "f32": (8, 23, True),
          "f64": (11, 52, True), "e4m3": (4, 3, False), "e5m2": (5, 2, True)}


def reg_bits(t):
    return 64 if t == "f64" else 32


def regs(m, n, k, types):
    d, a, b, c = types
    per = lambda elems, t: -(-(elems // 32 * TYPES[t]) // reg_bits(t))
    return per(m * n, d), per(m * k, a), per(k * n, b), per(m * n, c)


# ---- fragment layouts (PTX ISA 9.0 section 9.7.14.5) ----
def per_reg(t):
    return reg_bits(t) // TYPES[t]


def a_at(m, t, lane, r, j):
    g, q, e = lane // 4, lane % 4, per_reg(t)
    return (g + 8 * (r % 2), e * q + 4 * e * (r // 2) + j) if m == 16 else (g, e * q + j)


def b_at(t, lane, r, j):
    g, q, e = lane // 4, lane % 4, per_reg(t)
    return (e * q + 4 * e * r + j, g)


def c_at(m, lane, i):
    g, q = lane // 4, lane % 4
    return (g + 8 * (i // 2) if m == 16 else g, 2 * q + i % 2)


# ---- the kernel ----
def ptx():
    lines = [".version 8.7", ".target sm_90a", ".address_size 64", "",
             ".visible .entry mma_probe(.param .u64 inp, .param .u64 out)", "{",
             "  .reg .pred %p<2>;", "  .reg .b32 %t<8>;", "  .reg .b64 %rd<8>;",
             "  .reg .b32 %r<40>;", "  .reg .f32 %f<8>;", "  .reg .f64 %fd<24>;",
             "  ld.param.u64 %rd1, [inp];", "  ld.param.u64 %rd2, [out];",
             "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;",
             "  mov.u32 %t1, %ctaid.y;", "  mov.u32 %t2, %nctaid.x;", "  mov.u32 %t3, %ctaid.x;",
             "  mad.lo.s32 %t4, %t1, %t2, %t3;", "  mov.u32 %t5, %ntid.x;", "  mov.u32 %t6, %tid.x;",
             "  mad.lo.s32 %t4, %t4, %t5, %t6;",
             f"  mul.wide.u32 %rd3, %t4, {IN_WORDS * 4};", "  add.s64 %rd3, %rd1, %rd3;",
             f"  mul.wide.u32 %rd4, %t4, {OUT_WORDS * 4};", "  add.s64 %rd4, %rd2, %rd4;"]
    fs = forms()
    for y in range(len(fs)):
        lines += [f"  setp.eq.u32 %p1, %t1, {y};", f"  @%p1 bra FORM{y};"]
    lines.append("  ret;")
    for y, form in enumerate(fs):
        m, n, k, types = parse(form)
        nd, na, nb, nc = regs(m, n, k, types)
        lines.append(f"FORM{y}:")
        f64 = types[1] == "f64"
        word = 8 if f64 else 4
        srcs, off = [], 0
        for count, t in ((na, types[1]), (nb, types[2]), (nc, types[3])):
            names = []
            for _ in range(count):
                i = sum(map(len, srcs)) + len(names)
                if f64:
                    name = f"%fd{i}"
                    lines.append(f"  ld.global.f64 {name}, [%rd3+{off}];")
                else:
                    name = f"%r{i}"
                    lines.append(f"  ld.global.b32 {name}, [%rd3+{off}];")
                names.append(name)
                off += word
            srcs.append(names)
        dst = [f"%fd{16 + i}" if f64 else f"%r{32 + i}" for i in range(nd)]
        fmt = lambda v: "{" + ", ".join(v) + "}"
        lines.append(f"  {form} {fmt(dst)}, {fmt(srcs[0])}, {fmt(srcs[1])}, {fmt(srcs[2])};")
        for i, name in enumerate(dst):
            st = "f64" if f64 else "b32"
            lines.append(f"  st.global.{st} [%rd4+{i * word}], {name};")
        lines.append("  ret;")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- operands ----
def splitmix(x):
    with np.errstate(over="ignore"):
        z = (x + np.uint64(0x9E3779B97F4A7C15)) & M64
        z = ((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & M64
        z = ((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & M64
        return z ^ (z >> np.uint64(31))


class Rng:
    def __init__(self, key):
        self.key, self.n = key, 0

    def bits(self, shape):
        count = int(np.prod(shape))
        base = np.uint64((self.key * 1000003 + self.n) % (1 << 40)) << np.uint64(24)
        self.n += 1
        return splitmix(base + np.arange(count, dtype=np.uint64)).reshape(shape)

    def ints(self, shape, lo, hi):  # [lo, hi)
        return (self.bits(shape) % np.uint64(hi - lo)).astype(np.int64) + lo

    def coin(self, shape, p):
        return (self.bits(shape) >> np.uint64(11)).astype(np.float64) / 2.0**53 < p


REGIMES = ["normal", "wide", "bits", "cancel", "boundary", "subnormal", "zeros", "specials", "huge", "ints",
           "nans"]


def float_bits(t, rng, shape, regime, role):
    """Bit patterns of float type t (tf32 as f32 patterns with random low bits)."""
    eb, mb, ieee = FLOATS[t]
    bias, top = (1 << (eb - 1)) - 1, (1 << eb) - 1  # top: the all-ones field
    sign = rng.ints(shape, 0, 2)
    man = rng.ints(shape, 0, 1 << mb) if mb < 62 else (rng.bits(shape) & np.uint64((1 << mb) - 1)).astype(np.int64)
    maxf = top - 1 if ieee else top  # largest finite exponent field
    lo_n, hi_n = max(1, bias - 4), min(maxf, bias + 4) + 1
    if regime == "normal":
        ex = rng.ints(shape, lo_n, hi_n)
    elif regime in ("wide", "cancel"):
        ex = rng.ints(shape, 0, maxf + 1)
    elif regime == "bits":
        ex = rng.ints(shape, 0, top + 1)
    elif regime == "boundary":
        # C well above the products: its exponent 8..40 binades higher (f32) puts the products
        # at the 25-bit truncation point.
        shift = rng.ints(shape, 6, 42 if eb >= 8 else 14) if role == "c" else 0
        ex = np.clip(rng.ints(shape, lo_n, hi_n) + shift, 1, maxf)
    elif regime == "subnormal":
        ex = np.where(rng.coin(shape, 0.7), rng.ints(shape, 0, 2), rng.ints(shape, 1, min(maxf, bias) + 1))
    elif regime == "zeros":
        z = rng.coin(shape, 0.8)
        ex = np.where(z, 0, rng.ints(shape, lo_n, hi_n))
        man = np.where(z, 0, man)
    elif regime == "specials":
        ex = rng.ints(shape, lo_n, hi_n)
        z = rng.coin(shape, 0.2)
        ex, man = np.where(z, 0, ex), np.where(z, 0, man)
        inf = rng.coin(shape, 0.03)
        if ieee:
            ex, man = np.where(inf, top, ex), np.where(inf, 0, man)
        nan = rng.coin(shape, 0.01)
        ex = np.where(nan, top, ex)
        man = np.where(nan, np.maximum(man, 1) if ieee else (1 << mb) - 1, man)
    elif regime == "huge":
        ex = rng.ints(shape, max(1, maxf - 3), maxf + 1)
    elif regime == "nans":  # normal values; operands() places the NaNs
        ex = rng.ints(shape, lo_n, hi_n)
    else:  # ints: small integers, exact sums
        v = rng.ints(shape, -8, 9)
        out = np.zeros(shape, dtype=np.uint64)
        for i in range(-8, 9):
            out = np.where(v == i, np.uint64(encode_int(t, i)), out)
        return out
    if not ieee:  # e4m3: avoid the NaN pattern outside the raw and special regimes
        bad = (ex == top) & (man == (1 << mb) - 1) & (regime not in ("bits", "specials"))
        man = np.where(bad, man - 1, man)
    width = 1 + eb + mb
    v = (sign.astype(np.uint64) << np.uint64(width - 1)) | (ex.astype(np.uint64) << np.uint64(mb)) | man.astype(np.uint64)
    if t == "tf32":
        v = (v << np.uint64(13)) | (rng.bits(shape) & np.uint64(0x1FFF))
    return v


def encode_int(t, i):
    """Float type t's bit pattern of small integer i."""
    if i == 0:
        return 0
    eb, mb, _ = FLOATS[t]
    bias = (1 << (eb - 1)) - 1
    a = abs(i)
    e = a.bit_length() - 1
    frac = (a - (1 << e)) << mb >> e
    v = ((1 if i < 0 else 0) << (eb + mb)) | ((e + bias) << mb) | frac
    return v << 13 if t == "tf32" else v


def int_bits(t, rng, shape, regime, role):
    bits = TYPES[t]
    if t == "s32":
        if regime in ("huge", "boundary", "wide"):
            v = rng.ints(shape, -2**31, 2**31) if regime == "wide" else np.where(
                rng.coin(shape, 0.5), 2**31 - 1 - rng.ints(shape, 0, 5000), -2**31 + rng.ints(shape, 0, 5000))
        else:
            v = rng.ints(shape, -5000, 5000)
        return (v & 0xFFFFFFFF).astype(np.uint64)
    if regime in ("huge", "boundary"):  # extremes
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t[0] == "s" else (0, (1 << bits) - 1)
        v = np.where(rng.coin(shape, 0.5), hi, lo)
        if t == "b1":
            v = np.ones(shape, dtype=np.int64)
    else:
        v = rng.ints(shape, 0, 1 << bits)
    return (v & ((1 << bits) - 1)).astype(np.uint64)


def with_nans(t, rng, M, axis):
    """M with one NaN (random payload, quiet or signaling) per line along `axis` (None: all)."""
    eb, mb, ieee = FLOATS[t]
    width = 1 + eb + mb
    payload = rng.bits(M.shape) & np.uint64((1 << mb) - 1)
    payload = np.maximum(payload, np.uint64(1))
    nans = (rng.bits(M.shape) & np.uint64(1)) << np.uint64(width - 1)
    nans |= np.uint64(((1 << eb) - 1) << mb) | payload
    if not ieee:
        nans = (nans & np.uint64(1 << (width - 1))) | np.uint64((1 << (width - 1)) - 1)
    if t == "tf32":
        nans <<= np.uint64(13)
    if axis is None:
        return nans
    pos = rng.ints(M.shape[:axis] + M.shape[axis + 1:], 0, M.shape[axis])
    idx = np.expand_dims(pos, axis)
    hit = np.arange(M.shape[axis]).reshape([-1 if i == axis else 1 for i in range(M.ndim)]) == idx
    return np.where(hit, nans, M)


def elements(t, rng, shape, regime, role):
    return (float_bits if t in FLOATS else int_bits)(t, rng, shape, regime, role)


def operands(y, form, warps):
    """Registers of every lane: uint32 array (warps, 32, IN_WORDS)."""
    m, n, k, types = parse(form)
    d, a, b, c = types
    nd, na, nb, nc = regs(m, n, k, types)
    A = np.zeros((warps, m, k), dtype=np.uint64)
    B = np.zeros((warps, k, n), dtype=np.uint64)
    C = np.zeros((warps, m, n), dtype=np.uint64)
    for ri, regime in enumerate(REGIMES):
        sel = np.arange(ri, warps, len(REGIMES))
        if len(sel) == 0:
            continue
        rng = Rng(y * 100 + ri)
        w = len(sel)
        A[sel] = elements(a, rng, (w, m, k), regime, "a")
        B[sel] = elements(b, rng, (w, k, n), regime, "b")
        C[sel] = elements(c, rng, (w, m, n), regime, "c")
        if regime == "cancel" and a in FLOATS:  # pairs of products that cancel, some off by an ulp
            eb, mb, _ = FLOATS[a]
            signbit = np.uint64(1 << (eb + mb + (13 if a == "tf32" else 0)))
            flip = rng.coin((w, m, k // 2), 0.3).astype(np.uint64) << np.uint64(13 if a == "tf32" else 0)
            A[sel, :, 1::2] = (A[sel, :, 0::2] ^ signbit) ^ flip
            B[sel, 1::2, :] = B[sel, 0::2, :]
        if regime == "nans" and a in FLOATS:  # one NaN per row of A, column of B, some in C
            A[sel] = with_nans(a, rng, A[sel], 2)
            B[sel] = with_nans(b, rng, B[sel], 1)
            C[sel] = np.where(rng.coin((w, m, n), 0.2), with_nans(c, rng, C[sel], None), C[sel])
    words = np.zeros((warps, 32, IN_WORDS), dtype=np.uint64)
    slot = 0
    for count, t, M, at in ((na, a, A, lambda l, r, j: a_at(m, a, l, r, j)),
                            (nb, b, B, lambda l, r, j: b_at(b, l, r, j)),
                            (nc, c, C, None)):
        for r in range(count):
            for lane in range(32):
                v = np.zeros(warps, dtype=np.uint64)
                for j in range(per_reg(t)):
                    if at is None:
                        row, col = c_at(m, lane, r * per_reg(t) + j)
                    else:
                        row, col = at(lane, r, j)
                    v |= M[:, row, col] << np.uint64(j * TYPES[t] if TYPES[t] < 64 else 0)
                words[:, lane, slot] = v
            slot += 1
    if a == "f64":  # 64-bit registers: two words each
        out = np.zeros((warps, 32, IN_WORDS), dtype=np.uint32)
        out[:, :, 0:2 * slot:2] = (words[:, :, :slot] & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        out[:, :, 1:2 * slot:2] = (words[:, :, :slot] >> np.uint64(32)).astype(np.uint32)
        return out
    return words.astype(np.uint32)


def all_operands(warps):
    return np.stack([operands(y, f, warps) for y, f in enumerate(forms())])  # (forms, warps, 32, 16)


def digests(out):
    """One uint64 per warp: wrapping sum of splitmix64(position << 32 | word)."""
    F, W = out.shape[:2]
    pos = np.arange(32 * OUT_WORDS, dtype=np.uint64).reshape(32, OUT_WORDS) << np.uint64(32)
    h = splitmix(pos[None, None] | out.astype(np.uint64))
    with np.errstate(over="ignore"):
        return h.sum(axis=(2, 3), dtype=np.uint64)


def grid(warps):
    return warps // WARPS_PER_CTA, len(forms())


def gpu(ptx_path, warps, outdir, extra=""):
    import cupy as cp
    mod = cp.RawModule(path=ptx_path)
    fn = mod.get_function("mma_probe")
    inp = all_operands(warps)
    d_in = cp.asarray(inp)
    d_out = cp.zeros(inp.shape[:3] + (OUT_WORDS,), dtype=cp.uint32)
    fn(grid(warps), (32 * WARPS_PER_CTA,), (d_in, d_out))
    cp.cuda.Device().synchronize()
    out = cp.asnumpy(d_out)
    os.makedirs(outdir, exist_ok=True)
    keep = []
    for e in filter(None, extra.split(",")):
        y, w = e.split(":")
        keep += [(int(y), v) for v in (range(warps) if w == "*" else [int(w)])]
    np.savez_compressed(os.path.join(outdir, "result.npz"), digests=digests(out), raw=out[:, :64],
                        extra_at=np.array(keep, dtype=np.int64).reshape(-1, 2),
                        extra=np.array([out[y, w] for y, w in keep], dtype=np.uint32).reshape(-1, 32, OUT_WORDS))
    return out


def write_launch(dirpath, warps, ptx_name):
    gx, gy = grid(warps)
    F = len(forms())
    with open(os.path.join(dirpath, "launch.toml"), "w") as f:
        f.write(f'kernel = "{ptx_name}"\nentry = "mma_probe"\ngrid = [{gx}, {gy}]\nblock = {32 * WARPS_PER_CTA}\n\n'
                f'[[params]]\nbuffer = "inp"\ntype = "u32"\nlen = {F * warps * 32 * IN_WORDS}\ninit = "inputs/inp.bin"\n\n'
                f'[[params]]\nbuffer = "out"\ntype = "u32"\nlen = {F * warps * 32 * OUT_WORDS}\ninit = "zeros"\n\n'
                f'[outputs]\nout = "out/out.bin"\n')


def cpu(ptxrun, warps, resdir):
    work = os.path.join(resdir, "cpu")
    os.makedirs(os.path.join(work, "inputs"), exist_ok=True)
    with open(os.path.join(work, "kernel.ptx"), "w") as f:
        f.write(ptx())
    all_operands(warps).tofile(os.path.join(work, "inputs", "inp.bin"))
    write_launch(work, warps, "kernel.ptx")
    subprocess.run([ptxrun, "run", "--no-check", os.path.join(work, "launch.toml")], check=True)
    F = len(forms())
    out = np.fromfile(os.path.join(work, "out", "out.bin"), dtype=np.uint32).reshape(F, warps, 32, OUT_WORDS)
    res = np.load(os.path.join(resdir, "result.npz"))
    mine, theirs = digests(out), res["digests"]
    m_, n_ = 0, 0
    print(f"| form | mma | dot products | mismatching mma |\n|---|---|---|---|")
    total_bad = 0
    for y, form in enumerate(forms()):
        m, n, k, types = parse(form)
        bad = np.nonzero(mine[y] != theirs[y])[0]
        total_bad += len(bad)
        print(f"| `{form}` | {warps} | {warps * m * n} | {len(bad)} |")
        if len(bad):
            print(f"    mismatching warps: {list(bad[:8])}")
        for w in bad[:3]:
            if w < 64:
                diff = np.nonzero(out[y, w] != res["raw"][y, w])
                for lane, word in list(zip(*diff))[:4]:
                    print(f"    warp {w} ({REGIMES[w % len(REGIMES)]}) lane {lane} word {word}: "
                          f"ptxrun {out[y, w, lane, word]:#010x} H100 {res['raw'][y, w, lane, word]:#010x}")
    print(f"total mismatching mma: {total_bad}")
    return total_bad


def sample(warps, resdir, sdir):
    """A golden sample from the first `warps` warps of every form (the GPU's raw outputs)."""
    res = np.load(os.path.join(resdir, "result.npz"))
    os.makedirs(os.path.join(sdir, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(sdir, "expected"), exist_ok=True)
    with open(os.path.join(sdir, "kernel.ptx"), "w") as f:
        f.write(ptx())
    all_operands(warps).tofile(os.path.join(sdir, "inputs", "inp.bin"))
    np.ascontiguousarray(res["raw"][:, :warps]).tofile(os.path.join(sdir, "expected", "out.bin"))
    write_launch(sdir, warps, "kernel.ptx")
    with open(os.path.join(sdir, "launch.toml"), "a") as f:
        f.write('\n[expect]\noutputs = { out = "expected/out.bin" }\n')


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "ptx":
        with open(sys.argv[2], "w") as f:
            f.write(ptx())
    elif cmd == "gpu":
        gpu(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else "")
    elif cmd == "cpu":
        sys.exit(1 if cpu(sys.argv[2], int(sys.argv[3]), sys.argv[4]) else 0)
    elif cmd == "sample":
        sample(int(sys.argv[2]), sys.argv[3], sys.argv[4])
