"""The video-instruction campaign: every form (as PTX text), the operands, the modules.

Shared by gpu.py (the GPU half) and the offline comparison (ptxrun half). Deterministic.
"""
import numpy as np

N = 2048            # lanes per form
BLOCK = 64          # lanes per digest block
CHUNK = 600         # forms per module

SC_OPS = ["vadd", "vsub", "vabsdiff", "vmin", "vmax"]
T = ["u32", "s32"]
SEL1 = ["", "b0", "b1", "b2", "b3", "h0", "h1"]
# (asel, bsel) pairs that visit every selector once on each side
SEL1_PAIRS = [("", "b2"), ("b0", "h1"), ("b1", ""), ("b2", "b3"), ("b3", "b0"), ("h0", "h0"), ("h1", "b1")]
SECOND = ["none", "c", "add", "min", "max", "d.b0", "d.b1", "d.b2", "d.b3", "d.h0", "d.h1"]
CMPS = ["eq", "ne", "lt", "le", "gt", "ge"]
SIMD_OPS = ["add", "sub", "avrg", "absdiff", "min", "max"]
H_SEL = ["h%d%d" % (x, y) for x in range(4) for y in range(4)]
H_PAIRS = [("", "")] + [(H_SEL[i], H_SEL[(i * 5 + 3) % 16]) for i in range(16)]
H_MASK = ["", "h0", "h1", "h10"]
B_MASK = ["", "b0", "b1", "b10", "b2", "b20", "b21", "b210", "b3", "b30", "b31", "b310", "b32", "b320",
          "b321", "b3210"]


def _b_pairs():
    rng = np.random.default_rng(7)
    out = [("", ""), ("b3210", "b7654"), ("b7654", "b3210"), ("b0000", "b7777")]
    while len(out) < 28:
        a = "b" + "".join(str(v) for v in rng.integers(0, 8, 4))
        b = "b" + "".join(str(v) for v in rng.integers(0, 8, 4))
        out.append((a, b))
    return out


B_PAIRS = _b_pairs()


def sel(r, s):
    return r + ("." + s if s else "")


def _with_second(mods, a, b, second):
    """`mods d, a, b` with c, a secondary operation or a destination selector as `second` says."""
    if second == "none":
        return f"{mods} %r4, {a}, {b};"
    if second == "c":
        return f"{mods} %r4, {a}, {b}, %r3;"
    if second.startswith("d."):
        return f"{mods} %r4.{second[2:]}, {a}, {b}, %r3;"
    return f"{mods}.{second} %r4, {a}, {b}, %r3;"


def scalar_line(op, types, sat, second, asel, bsel, mode=""):
    """One scalar video instruction (vadd..vmax, vshl/vshr with mode) writing %r4 from %r1,%r2,%r3."""
    mods = ".".join([op] + list(types)) + (".sat" if sat else "") + ("." + mode if mode else "")
    return _with_second(mods, sel("%r1", asel), sel("%r2", bsel), second)


def vset_line(types, cmp, second, asel, bsel):
    return _with_second("vset." + ".".join(types) + "." + cmp, sel("%r1", asel), sel("%r2", bsel), second)


def vmad_line(types, sat, scale, neg, asel, bsel):
    mods = "vmad." + ".".join(types) + (".po" if neg == "po" else "") + (".sat" if sat else "") + \
        ("." + scale if scale else "")
    a = ("-" if neg in ("a", "ab") else "") + sel("%r1", asel)
    b = ("-" if neg in ("b", "ab") else "") + sel("%r2", bsel)
    c = ("-" if neg == "c" else "") + "%r3"
    return f"{mods} %r4, {a}, {b}, {c};"


def simd_line(op, width, types, sat, add, mask, asel, bsel, cmp=None):
    name = ("vset%d" % width) if cmp else ("v%s%d" % (op, width))
    mods = ".".join([name] + list(types)) + ("." + cmp if cmp else "") + (".sat" if sat else "") + \
        (".add" if add else "")
    return f"{mods} {sel('%r4', mask)}, {sel('%r1', asel)}, {sel('%r2', bsel)}, %r3;"


def forms():
    """[(family, line)]: family picks the operand set ("gen" or "shift")."""
    out = []
    types3 = [(d, a, b) for d in T for a in T for b in T]
    types2 = [(a, b) for a in T for b in T]
    for op in SC_OPS:
        for ty in types3:
            for sat in (0, 1):
                for second in SECOND:
                    for asel, bsel in SEL1_PAIRS:
                        out.append(("gen", scalar_line(op, ty, sat, second, asel, bsel)))
                for asel in SEL1:
                    for bsel in SEL1:
                        out.append(("gen", scalar_line(op, ty, sat, "add", asel, bsel)))
    for op in ("vshl", "vshr"):
        for d in T:
            for a in T:
                for mode in ("clamp", "wrap"):
                    for sat in (0, 1):
                        for second in SECOND:
                            for asel, bsel in SEL1_PAIRS:
                                out.append(("shift", scalar_line(op, (d, a, "u32"), sat, second, asel, bsel,
                                                                 mode)))
    for ty in types3:
        for sat in (0, 1):
            for scale in ("", "shr7", "shr15"):
                for neg in ("", "a", "b", "ab", "c", "po"):
                    for asel, bsel in SEL1_PAIRS:
                        out.append(("gen", vmad_line(ty, sat, scale, neg, asel, bsel)))
    for ty in types2:
        for cmp in CMPS:
            for second in SECOND:
                for asel, bsel in SEL1_PAIRS:
                    out.append(("gen", vset_line(ty, cmp, second, asel, bsel)))
    for width, masks, pairs in ((2, H_MASK, H_PAIRS), (4, B_MASK, B_PAIRS)):
        full = "h10" if width == 2 else "b3210"
        for op in SIMD_OPS:
            for ty in types3:
                for sat, add in ((0, 0), (1, 0), (0, 1)):
                    for mask in masks:
                        out.append(("gen", simd_line(op, width, ty, sat, add, mask, "", "")))
                    for asel, bsel in pairs[1:]:
                        out.append(("gen", simd_line(op, width, ty, sat, add, full, asel, bsel)))
        for ty in types2:
            for cmp in CMPS:
                for add in (0, 1):
                    for mask in masks:
                        out.append(("gen", simd_line(None, width, ty, 0, add, mask, "", "", cmp)))
                    for asel, bsel in pairs[1:]:
                        out.append(("gen", simd_line(None, width, ty, 0, add, full, asel, bsel, cmp)))
    out += [("gen", line) for line in IMM]
    return out


IMM = ["vadd.u32.u32.u32 %r4, %r1, 5;", "vadd.s32.s32.s32 %r4, 7, %r1;", "vsub.s32.s32.s32.sat %r4, -9, %r2;",
       "vadd.s32.s32.s32.add %r4, %r1, %r2, 9;", "vmax.u32.u32.u32.sat %r4.h1, %r1, %r2, 9;",
       "vabsdiff.s32.u32.s32.min %r4, %r1.b1, 300, -5;", "vshl.u32.u32.u32.clamp %r4, %r1, 3;",
       "vshr.s32.s32.u32.wrap.add %r4, %r1, 33, %r3;", "vmad.u32.u32.u32 %r4, %r1, 3, %r3;",
       "vmad.s32.s32.s32.sat %r4, -%r1, 40000, 12345;", "vmad.s32.u32.u32.shr7 %r4, 65535, %r2.h1, -7;",
       "vset.s32.s32.lt %r4, %r1, -1;", "vset.u32.u32.ge.add %r4, 5, %r2.b0, 100;"]


def golden_lines():
    """The golden sample's forms: every 37th form of the campaign, then the immediate-operand forms."""
    return [line for _, line in forms()[::37]] + IMM


def golden_operands(n=128):
    """(a, b, c) for the golden sample: 64 boundary lanes, then random words (b's bytes often 0..40)."""
    rng = np.random.default_rng(20261128)
    i = np.arange(64)
    both = np.array(ADV + ADV_SHIFT, np.uint32)
    a = np.concatenate([np.array(ADV, np.uint32)[i % 16], _structured(rng, n - 64)])
    b = np.concatenate([both[(i * 5) % 32], _structured(rng, n - 64, shift=True)])
    c = np.concatenate([np.array(ADV, np.uint32)[(i * 3 + 1) % 16], _structured(rng, n - 64)])
    return a.astype(np.uint32), b.astype(np.uint32), c.astype(np.uint32)


def modules():
    """[(family, first form index, [lines])]: consecutive forms of one family, at most CHUNK each."""
    mods = []
    for i, (fam, line) in enumerate(forms()):
        if not mods or mods[-1][0] != fam or len(mods[-1][2]) >= CHUNK:
            mods.append((fam, i, []))
        mods[-1][2].append(line)
    return mods


def ptx(lines, n=N):
    """One kernel `video(a, b, c, out)`: lane i applies every line to a[i], b[i], c[i] and stores the
    result of line j at out[j * n + i]."""
    body = []
    for j, line in enumerate(lines):
        body.append(f"\t{line}\n\tst.global.u32 [%rd4+{j * n * 4}], %r4;")
    return f""".version 8.7
.target sm_90a
.address_size 64

.visible .entry video(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pout)
{{
\t.reg .b32 %r<8>;
\t.reg .b64 %rd<8>;
\tld.param.u64 %rd1, [pa];
\tld.param.u64 %rd2, [pb];
\tld.param.u64 %rd3, [pc];
\tld.param.u64 %rd4, [pout];
\tmov.u32 %r5, %ctaid.x;
\tmov.u32 %r6, %ntid.x;
\tmov.u32 %r7, %tid.x;
\tmad.lo.u32 %r5, %r5, %r6, %r7;
\tmul.wide.u32 %rd5, %r5, 4;
\tadd.s64 %rd1, %rd1, %rd5;
\tadd.s64 %rd2, %rd2, %rd5;
\tadd.s64 %rd3, %rd3, %rd5;
\tadd.s64 %rd4, %rd4, %rd5;
\tld.global.u32 %r1, [%rd1];
\tld.global.u32 %r2, [%rd2];
\tld.global.u32 %r3, [%rd3];
""" + "\n".join(body) + "\n\tret;\n}\n"


ADV = [0x0, 0x1, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, 0x7F7F7F7F, 0x80808080, 0xFFFF0000, 0x0000FFFF,
       0x7FFF8000, 0x80007FFF, 0x017F80FF, 0xFF807F01, 0x00FF00FF, 0x12345678, 0xFEDCBA98]
ADV_SHIFT = [0, 1, 7, 8, 15, 16, 31, 32, 33, 40, 0xFF, 0x100, 0x1F1F1F1F, 0x20212827, 0x7FFFFFFF, 0xFFFFFFFF]
SPECIAL_BYTES = np.array([0x00, 0x01, 0x7F, 0x80, 0x81, 0xFE, 0xFF, 0x02], dtype=np.uint32)


def _structured(rng, n, shift=False):
    """Words whose bytes are often boundary values (or, for shift counts, 0..40)."""
    kind = rng.integers(0, 4, n)
    words = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(n, dtype=np.uint32)
    for k in range(4):
        if shift:
            byte = np.where(rng.random(n) < 0.75, rng.integers(0, 41, n), rng.integers(0, 256, n))
        else:
            byte = np.where(rng.random(n) < 0.5, SPECIAL_BYTES[rng.integers(0, 8, n)], rng.integers(0, 256, n))
        out |= (byte.astype(np.uint32) << np.uint32(8 * k))
    small = (rng.integers(-300, 300, n)).astype(np.int64).astype(np.uint32)
    if shift:
        small = rng.integers(0, 41, n).astype(np.uint32)
    return np.select([kind == 0, kind == 1], [words, small], out).astype(np.uint32)


def operands(family, seed=0):
    """(a, b, c), N lanes each: lanes 0..511 the adversarial cross, the rest random/structured
    (seed 0: round 1; other seeds draw other random lanes)."""
    rng = np.random.default_rng((2026 if family == "gen" else 2027) + 1000 * seed)
    adv = np.array(ADV, dtype=np.uint32)
    badv = np.array(ADV_SHIFT if family == "shift" else ADV, dtype=np.uint32)
    i = np.arange(512)
    a = np.empty(N, np.uint32)
    b = np.empty(N, np.uint32)
    c = np.empty(N, np.uint32)
    a[:512] = adv[(i // 16) % 16]
    b[:512] = badv[i % 16]
    c[:512] = adv[(i * 7 + i // 256) % 16]
    a[512:] = _structured(rng, N - 512)
    b[512:] = _structured(rng, N - 512, shift=family == "shift")
    c[512:] = _structured(rng, N - 512)
    return a, b, c


def block_keys():
    x = (np.arange(BLOCK, dtype=np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(31)
    return x | np.uint64(1)


def digests(out):
    """out: (forms, N) uint32 -> (forms, N // BLOCK) uint32 block digests (numpy or cupy arrays)."""
    xp = np
    try:
        import cupy
        xp = cupy.get_array_module(out)
    except ImportError:
        pass
    k = xp.asarray(block_keys())
    f = out.shape[0]
    v = out.reshape(f, N // BLOCK, BLOCK).astype(xp.uint64) * k
    s = v.sum(axis=2, dtype=xp.uint64)
    return ((s ^ (s >> xp.uint64(32))) & xp.uint64(0xFFFFFFFF)).astype(xp.uint32)
