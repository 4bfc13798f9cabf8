#!/usr/bin/env python3
"""createpolicy probe: what 64-bit values the H100's createpolicy gives, form by form
(README.md beside this file).

  probe.py OUT.npz [--dry]          on a machine with a GPU and CuPy: run the probe, write OUT.npz
  probe.py sample RESULTS.npz DIR   write the golden sample (ptx-samples/numerics/createpolicy)

fractional: every f32 fraction in (0, 1] (change points only) plus out-of-range fractions, for the 12
priority pairs; range: random and structured (address, primary size, total size), with and without
.global; cvt: random and structured access-property words.
"""
import sys
import numpy as np

PRI = ["evict_last", "evict_normal", "evict_first", "evict_unchanged"]
SEC = [None, "evict_first", "evict_unchanged"]
COMBOS = [(p, s) for p in PRI for s in SEC]


def mods(p, s):
    return f".L2::{p}" + (f".L2::{s}" if s else "")


HEAD = ".version 8.7\n.target sm_90a\n.address_size 64\n"


def ptx():
    out = [HEAD]
    # fractional, fraction from a register: out[i*12 + c]
    out.append(".visible .entry frac(.param .u64 out, .param .u64 inp, .param .u32 n)\n{\n"
               "  .reg .b64 %rd<40>; .reg .b32 %r<8>; .reg .f32 %f<2>; .reg .pred %p<2>;\n"
               "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [inp]; ld.param.u32 %r1, [n];\n"
               "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
               "  setp.ge.u32 %p1, %r5, %r1; @%p1 ret;\n"
               "  mul.wide.u32 %rd3, %r5, 4; add.s64 %rd3, %rd2, %rd3; ld.global.f32 %f1, [%rd3];\n"
               f"  mul.wide.u32 %rd4, %r5, {8 * len(COMBOS)}; add.s64 %rd4, %rd1, %rd4;\n")
    for c, (p, s) in enumerate(COMBOS):
        out.append(f"  createpolicy.fractional{mods(p, s)}.b64 %rd{10 + c}, %f1;\n"
                   f"  st.global.b64 [%rd4+{8 * c}], %rd{10 + c};\n")
    out.append("  ret;\n}\n")
    # immediates and the default fraction: one thread, out[c*6 + j]
    imms = [None, "1.0", "0.5", "0.25", "0f3F000001", "0f3DCCCCCD"]
    out.append(".visible .entry frac_imm(.param .u64 out)\n{\n  .reg .b64 %rd<8>;\n  ld.param.u64 %rd1, [out];\n")
    for c, (p, s) in enumerate(COMBOS):
        for j, v in enumerate(imms):
            arg = f", {v}" if v else ""
            out.append(f"  createpolicy.fractional{mods(p, s)}.b64 %rd2{arg};\n"
                       f"  st.global.b64 [%rd1+{8 * (c * len(imms) + j)}], %rd2;\n")
    out.append("  ret;\n}\n")
    # range: inp = (addr u64, ps u32, ts u32) per thread; out[i*24 + g*12 + c]
    out.append(".visible .entry rng(.param .u64 out, .param .u64 inp, .param .u32 n)\n{\n"
               "  .reg .b64 %rd<12>; .reg .b32 %r<12>; .reg .pred %p<2>;\n"
               "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [inp]; ld.param.u32 %r1, [n];\n"
               "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
               "  setp.ge.u32 %p1, %r5, %r1; @%p1 ret;\n"
               "  mul.wide.u32 %rd3, %r5, 16; add.s64 %rd3, %rd2, %rd3;\n"
               "  ld.global.u64 %rd5, [%rd3]; ld.global.u32 %r6, [%rd3+8]; ld.global.u32 %r7, [%rd3+12];\n"
               f"  mul.wide.u32 %rd4, %r5, {16 * len(COMBOS)}; add.s64 %rd4, %rd1, %rd4;\n")
    for g, glob in enumerate(["", ".global"]):
        for c, (p, s) in enumerate(COMBOS):
            out.append(f"  createpolicy.range{glob}{mods(p, s)}.b64 %rd6, [%rd5], %r6, %r7;\n"
                       f"  st.global.b64 [%rd4+{8 * (g * len(COMBOS) + c)}], %rd6;\n")
    out.append("  ret;\n}\n")
    # cvt
    out.append(".visible .entry cvt(.param .u64 out, .param .u64 inp, .param .u32 n)\n{\n"
               "  .reg .b64 %rd<12>; .reg .b32 %r<8>; .reg .pred %p<2>;\n"
               "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [inp]; ld.param.u32 %r1, [n];\n"
               "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
               "  setp.ge.u32 %p1, %r5, %r1; @%p1 ret;\n"
               "  mul.wide.u32 %rd3, %r5, 8; add.s64 %rd6, %rd2, %rd3; add.s64 %rd7, %rd1, %rd3;\n"
               "  ld.global.u64 %rd5, [%rd6];\n  createpolicy.cvt.L2.b64 %rd8, %rd5;\n  st.global.u64 [%rd7], %rd8;\n"
               "  ret;\n}\n")
    return "".join(out)


def rng64(seed, n):
    x = np.arange(n, dtype=np.uint64) + np.uint64(seed << 32)
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def range_inputs():
    n = 16384
    r = rng64(1, 4 * n)
    addr = r[:n].copy()
    addr[n // 4: n // 2] &= np.uint64((1 << 48) - 1)          # canonical-looking addresses
    addr[n // 2: 3 * n // 4] &= ~np.uint64(0xFFF)             # page aligned
    addr[3 * n // 4:] = np.uint64(0x7F0000000000) + (r[n:n + n // 4] & np.uint64(0xFFFFFF80))
    ps = (r[n:2 * n] & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    ts = (r[2 * n:3 * n] & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    e1 = (r[3 * n:4 * n] % np.uint64(33)).astype(np.int64)
    e2 = ((r[3 * n:4 * n] >> np.uint64(8)) % np.uint64(33)).astype(np.int64)
    pw = np.array([1 << min(e, 31) if e < 32 else 0 for e in e1], dtype=np.uint64).astype(np.uint32)
    tw = np.array([1 << min(e, 31) if e < 32 else 0 for e in e2], dtype=np.uint64).astype(np.uint32)
    q = n // 8
    ps[:q], ts[:q] = pw[:q], tw[:q]                                     # powers of two (and 0)
    ps[q:2 * q] = np.minimum(ps[q:2 * q], ts[q:2 * q])                   # primary <= total
    ps[2 * q:3 * q] = ps[2 * q:3 * q] >> (r[:q] % np.uint64(32)).astype(np.uint32)
    ts[2 * q:3 * q] = ts[2 * q:3 * q] >> (r[q:2 * q] % np.uint64(32)).astype(np.uint32)
    small = np.arange(q, dtype=np.uint32)
    ps[3 * q:4 * q], ts[3 * q:4 * q] = small % 64 * 4096, small // 64 * 65536   # page-ish multiples
    buf = np.zeros((n, 4), dtype=np.uint32)
    buf[:, 0] = (addr & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    buf[:, 1] = (addr >> np.uint64(32)).astype(np.uint32)
    buf[:, 2], buf[:, 3] = ps, ts
    return buf


def cvt_inputs():
    n = 16384
    v = rng64(2, n)
    v[: 64] = np.uint64(1) << np.arange(64, dtype=np.uint64)
    v[64] = 0
    consts = [0x1000000000000000, 0x12F0000000000000, 0x14F0000000000000, 0x16F0000000000000]
    v[65:65 + len(consts)] = np.array(consts, dtype=np.uint64)
    v[100:1000] = v[100:1000] & np.uint64(0xFFFF000000000000)
    return v


def special_fracs():
    vals = [0, 0x80000000, 0x3f800001, 0x40000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001,
            0xbf800000, 0xbf000000, 0x00000001, 0x007fffff, 0x00800000, 0x3f7fffff, 0x3f800000, 0x7f7fffff]
    return np.array(vals, dtype=np.uint32)


def main():
    outp = sys.argv[1]
    dry = "--dry" in sys.argv
    text = ptx()
    res = {"ptx": np.array(text)}
    rin, cin, sf = range_inputs(), cvt_inputs(), special_fracs()
    res["range_in"], res["cvt_in"], res["special_in"] = rin, cin, sf
    if not dry:
        import cupy as cp
        import os
        import tempfile
        path = os.path.join(tempfile.mkdtemp(), "cp.ptx")
        with open(path, "w") as f:
            f.write(text)
        mod = cp.RawModule(path=path)
        C = len(COMBOS)
        f_frac, f_imm, f_rng, f_cvt = (mod.get_function(k) for k in ("frac", "frac_imm", "rng", "cvt"))
        o = cp.zeros(6 * C, dtype=cp.uint64)
        f_imm((1,), (1,), (o,))
        res["imm"] = cp.asnumpy(o).reshape(C, 6)
        d_sf = cp.asarray(sf)
        o = cp.zeros(len(sf) * C, dtype=cp.uint64)
        f_frac(((len(sf) + 255) // 256,), (256,), (o, d_sf, np.uint32(len(sf))))
        res["special"] = cp.asnumpy(o).reshape(len(sf), C)
        # sweep (0, 1]: bits 1 .. 0x3f800000
        lo, hi, chunk = 1, 0x3F800000, 1 << 24
        pts_bits, pts_vals = [], []
        prev = None
        while lo <= hi:
            n = min(chunk, hi - lo + 1)
            bits = cp.arange(lo, lo + n, dtype=cp.uint32)
            o = cp.empty(n * C, dtype=cp.uint64)
            f_frac(((n + 255) // 256,), (256,), (o, bits, np.uint32(n)))
            o = o.reshape(n, C)
            ch = cp.any(o[1:] != o[:-1], axis=1)
            idx = cp.nonzero(ch)[0] + 1
            if prev is None or bool(cp.any(o[0] != prev)):
                idx = cp.concatenate([cp.zeros(1, dtype=idx.dtype), idx])
            idx = idx[:20000]
            pts_bits.append(cp.asnumpy(bits[idx]))
            pts_vals.append(cp.asnumpy(o[idx]))
            prev = o[-1].copy()
            lo += n
        res["sweep_bits"] = np.concatenate(pts_bits)
        res["sweep_vals"] = np.concatenate(pts_vals)
        d = cp.asarray(rin)
        n = rin.shape[0]
        o = cp.zeros(n * 2 * C, dtype=cp.uint64)
        f_rng(((n + 255) // 256,), (256,), (o, d, np.uint32(n)))
        res["range"] = cp.asnumpy(o).reshape(n, 2, C)
        d = cp.asarray(cin)
        o = cp.zeros(len(cin), dtype=cp.uint64)
        f_cvt(((len(cin) + 255) // 256,), (256,), (o, d, np.uint32(len(cin))))
        res["cvt"] = cp.asnumpy(o)
        cp.cuda.Device().synchronize()
        print("imm:", [hex(v) for v in res["imm"][:, 0]])
        print("sweep change points:", len(res["sweep_bits"]))
        print("range distinct:", len(np.unique(res["range"])), "cvt distinct:", len(np.unique(res["cvt"])))
    np.savez_compressed(outp, **res)
    print("wrote", outp)


SAMPLE_THREADS = 64


def sample(res_path, sdir):
    """A golden sample: thread i evaluates the 12 fractional forms on fraction i and cvt on word i;
    every expected value is one the GPU gave in the probe (the sweep's change points, the values
    just below them, the out-of-range fractions) or the value it gave for every fraction between
    two change points."""
    import os
    d = np.load(res_path)
    bits, vals = d["sweep_bits"].astype(np.uint32), d["sweep_vals"]
    fr, ex = [], []
    for b, v in zip(d["special_in"], d["special"]):
        fr.append(int(b)); ex.append(v)
    for i, (b, v) in enumerate(zip(bits, vals)):
        fr.append(int(b)); ex.append(v)
        if i > 0:
            fr.append(int(b) - 1); ex.append(vals[i - 1])
    fr.append(0x3F800000 - 7); ex.append(vals[-1])
    n = SAMPLE_THREADS
    fr = (fr + [fr[-1]] * n)[:n]
    ex = (ex + [ex[-1]] * n)[:n]
    assert all(e is not None for e in ex)
    C = len(COMBOS)
    out = np.zeros((n, C + 1), dtype=np.uint64)
    out[:, :C] = np.array(ex, dtype=np.uint64)
    out[:, C] = d["cvt"][:n]
    os.makedirs(os.path.join(sdir, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(sdir, "expected"), exist_ok=True)
    np.array(fr, dtype=np.uint32).tofile(os.path.join(sdir, "inputs", "fraction.bin"))
    d["cvt_in"][:n].astype(np.uint64).tofile(os.path.join(sdir, "inputs", "property.bin"))
    out.tofile(os.path.join(sdir, "expected", "out.bin"))
    lines = [HEAD, ".visible .entry policies(.param .u64 out, .param .u64 fraction, .param .u64 property)\n{\n",
             "  .reg .b64 %rd<40>; .reg .b32 %r<4>; .reg .f32 %f<2>;\n",
             "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [fraction]; ld.param.u64 %rd3, [property];\n",
             "  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2; cvta.to.global.u64 %rd3, %rd3;\n",
             "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd4, %r1, 4; add.s64 %rd4, %rd2, %rd4; ld.global.f32 %f1, [%rd4];\n",
             "  mul.wide.u32 %rd5, %r1, 8; add.s64 %rd5, %rd3, %rd5; ld.global.u64 %rd6, [%rd5];\n",
             f"  mul.wide.u32 %rd7, %r1, {8 * (C + 1)}; add.s64 %rd7, %rd1, %rd7;\n"]
    for c, (p, s_) in enumerate(COMBOS):
        lines.append(f"  createpolicy.fractional{mods(p, s_)}.b64 %rd{10 + c}, %f1;\n"
                     f"  st.global.b64 [%rd7+{8 * c}], %rd{10 + c};\n")
    lines.append(f"  createpolicy.cvt.L2.b64 %rd30, %rd6;\n  st.global.b64 [%rd7+{8 * C}], %rd30;\n  ret;\n}}\n")
    with open(os.path.join(sdir, "kernel.ptx"), "w") as f:
        f.write("".join(lines))
    with open(os.path.join(sdir, "launch.toml"), "w") as f:
        f.write('kernel = "kernel.ptx"\nentry = "policies"\ngrid = 1\nblock = %d\n\n'
                '[[params]]\nbuffer = "out"\ntype = "u64"\nlen = %d\ninit = "zeros"\n\n'
                '[[params]]\nbuffer = "fraction"\ntype = "u32"\nlen = %d\ninit = "inputs/fraction.bin"\n\n'
                '[[params]]\nbuffer = "property"\ntype = "u64"\nlen = %d\ninit = "inputs/property.bin"\n\n'
                '[outputs]\nout = "out/out.bin"\n\n[expect]\noutputs = { out = "expected/out.bin" }\n'
                % (n, n * (C + 1), n, n))


if __name__ == "__main__":
    if sys.argv[1] == "sample":
        sample(sys.argv[2], sys.argv[3])
    else:
        main()
