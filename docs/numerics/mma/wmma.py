#!/usr/bin/env python3
"""The wmma campaign (see README.md beside this file): fragment layouts and numerics against an H100.

  wmma.py layout-ptx OUT.ptx        one kernel per (fragment, layout, shape, type): element (i, j) of the tile
                                    holds its index in memory, every lane stores its fragment registers raw
  wmma.py ptx OUT.ptx               one kernel per form of WMMA_FORMS: each warp loads its A, B and C tiles
                                    from global memory (row- or column-major), runs wmma.mma, stores D
  wmma.py gpu DIR WARPS             (GPU + CuPy) run both, write DIR/wmma.npz
  wmma.py cpu PTXRUN DIR WARPS      run the same kernels in ptxrun, compare, print the tables
Operands come from probe.py's generator and regimes.
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe as P  # noqa: E402

SIZE = {"f16": 2, "bf16": 2, "f32": 4, "s32": 4, "tf32": 4, "f64": 8, "s8": 1, "u8": 1}
NP = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

# ---- layouts ----
LAYOUT_CASES = []
for _shape in [(16, 16, 16), (32, 8, 16), (8, 32, 16)]:
    for _frag, _t in [("a", "f16"), ("b", "f16"), ("c", "f16"), ("c", "f32"), ("a", "bf16"), ("b", "bf16"),
                      ("a", "s8"), ("b", "s8"), ("a", "u8"), ("c", "s32")]:
        for _lay in ("row", "col"):
            LAYOUT_CASES.append((_frag, _lay, _shape, _t))
for _frag, _t in [("a", "tf32"), ("b", "tf32"), ("c", "f32")]:
    for _lay in ("row", "col"):
        LAYOUT_CASES.append((_frag, _lay, (16, 16, 8), _t))
for _frag in "abc":
    for _lay in ("row", "col"):
        LAYOUT_CASES.append((_frag, _lay, (8, 8, 4), "f64"))


def dims(frag, m, n, k):
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[frag]


def nregs(frag, t, m, n, k):
    r, c = dims(frag, m, n, k)
    if t == "f16":
        return 8 if frag in "ab" else 4
    if t == "f64":
        return 1 if frag in "ab" else 2
    return r * c * P.TYPES["f32" if t in ("s32", "tf32") else t] // 32 // 32


def header():
    return [".version 8.0", ".target sm_90", ".address_size 64"]


def regs_decl(n, t):
    rt = ".f64" if t == "f64" else ".b32"
    return f"{rt} %{'d' if t == 'f64' else 'r'}"


def layout_ptx():
    out = header()
    for ci, (frag, lay, (m, n, k), t) in enumerate(LAYOUT_CASES):
        r, c = dims(frag, m, n, k)
        nr = nregs(frag, t, m, n, k)
        w = 8 if t == "f64" else 4
        x = "%d" if t == "f64" else "%x"
        regs = ", ".join(f"{x}{i}" for i in range(nr))
        out += [f".visible .entry layout{ci}(.param .u64 src, .param .u64 dst)", "{",
                f"  .reg {'.f64' if t == 'f64' else '.b32'} {x}<{nr}>;", "  .reg .b64 %rd<4>;", "  .reg .b32 %t<2>;",
                "  ld.param.u64 %rd1, [src];", "  ld.param.u64 %rd2, [dst];",
                "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;",
                f"  wmma.load.{frag}.sync.aligned.{lay}.m{m}n{n}k{k}.global.{t} {{{regs}}}, [%rd1], {c if lay == 'row' else r};",
                "  mov.u32 %t1, %tid.x;", f"  mul.wide.u32 %rd3, %t1, {nr * w};", "  add.s64 %rd2, %rd2, %rd3;"]
        out += [f"  st.global.{'f64' if t == 'f64' else 'b32'} [%rd2+{i * w}], {x}{i};" for i in range(nr)]
        out += ["  ret;", "}"]
    return "\n".join(out) + "\n"


def layout_inputs(ci):
    """The source tiles (one per byte plane for 8-bit types) and the output words per lane."""
    frag, lay, (m, n, k), t = LAYOUT_CASES[ci]
    r, c = dims(frag, m, n, k)
    idx = np.arange(r * c, dtype=np.int64)
    planes = [idx] if SIZE[t] >= 2 else [idx & 0xFF, idx >> 8]
    words = nregs(frag, t, m, n, k) * (2 if t == "f64" else 1)
    return [p.astype(NP[SIZE[t]]) for p in planes], words


# ---- numerics ----
WMMA_FORMS = [
    ("row", "col", (16, 16, 16), ("f32", "f16", "f16", "f32"), ""),
    ("col", "row", (16, 16, 16), ("f16", "f16", "f16", "f16"), ""),
    ("row", "row", (32, 8, 16), ("f32", "f16", "f16", "f32"), ""),
    ("col", "col", (8, 32, 16), ("f16", "f16", "f16", "f16"), ""),
    ("row", "col", (16, 16, 16), ("f32", "bf16", "bf16", "f32"), ""),
    ("row", "col", (32, 8, 16), ("f32", "bf16", "bf16", "f32"), ""),
    ("col", "row", (8, 32, 16), ("f32", "bf16", "bf16", "f32"), ""),
    ("row", "col", (16, 16, 8), ("f32", "tf32", "tf32", "f32"), ""),
    ("col", "row", (16, 16, 8), ("f32", "tf32", "tf32", "f32"), ""),
    ("row", "col", (16, 16, 16), ("s32", "s8", "s8", "s32"), ".satfinite"),
    ("row", "col", (32, 8, 16), ("s32", "u8", "u8", "s32"), ""),
    ("col", "row", (8, 32, 16), ("s32", "s8", "s8", "s32"), ".satfinite"),
    ("row", "col", (8, 8, 4), ("f64", "f64", "f64", "f64"), ""),
]


def opcode(form):
    la, lb, (m, n, k), (d, a, b, c), sat = form
    types = f".{d}.{c}" if a == "f16" else f".{d}.{a}.{b}.{c}"
    return f"wmma.mma.sync.aligned.{la}.{lb}.m{m}n{n}k{k}{types}{sat}"


def numerics_ptx():
    out = header()
    for fi, form in enumerate(WMMA_FORMS):
        la, lb, (m, n, k), (d, a, b, c), sat = form
        f64 = a == "f64"
        x = "%d" if f64 else "%r"
        counts = {"a": nregs("a", a, m, n, k), "b": nregs("b", b, m, n, k), "c": nregs("c", c, m, n, k),
                  "d": nregs("c", d, m, n, k)}
        names, at = {}, 0
        for f in "abcd":
            names[f] = [f"{x}{at + i}" for i in range(counts[f])]
            at += counts[f]
        out += [f".visible .entry wmma{fi}(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)", "{",
                f"  .reg {'.f64' if f64 else '.b32'} {x}<{at}>;", "  .reg .b64 %rd<16>;", "  .reg .b32 %t<4>;",
                "  mov.u32 %t1, %ctaid.x;", "  mov.u32 %t2, %tid.x;", "  shr.u32 %t2, %t2, 5;",
                f"  mad.lo.s32 %t3, %t1, {P.WARPS_PER_CTA}, %t2;"]
        for i, (f, t) in enumerate([("a", a), ("b", b), ("c", c), ("d", d)]):
            r, cc = dims(f, m, n, k)
            out += [f"  ld.param.u64 %rd{i}, [p{f}];", f"  cvta.to.global.u64 %rd{i}, %rd{i};",
                    f"  mul.wide.u32 %rd{4 + i}, %t3, {r * cc * SIZE[t]};", f"  add.s64 %rd{i}, %rd{i}, %rd{4 + i};"]
        lay = {"a": la, "b": lb, "c": "row", "d": "col" if fi % 2 else "row"}
        for i, (f, t) in enumerate([("a", a), ("b", b), ("c", c)]):
            r, cc = dims(f, m, n, k)
            stride = cc if lay[f] == "row" else r
            out.append(f"  wmma.load.{f}.sync.aligned.{lay[f]}.m{m}n{n}k{k}.global.{t} "
                       f"{{{', '.join(names[f])}}}, [%rd{i}], {stride};")
        out.append(f"  {opcode(form)} {{{', '.join(names['d'])}}}, {{{', '.join(names['a'])}}}, "
                   f"{{{', '.join(names['b'])}}}, {{{', '.join(names['c'])}}};")
        stride = n if lay["d"] == "row" else m
        out.append(f"  wmma.store.d.sync.aligned.{lay['d']}.m{m}n{n}k{k}.global.{d} [%rd3], "
                   f"{{{', '.join(names['d'])}}}, {stride};")
        out += ["  ret;", "}"]
    return "\n".join(out) + "\n"


def tiles(fi, warps):
    """A, B, C of every warp as memory images (uint8 arrays), in each operand's layout."""
    la, lb, (m, n, k), (d, a, b, c), _ = WMMA_FORMS[fi]
    A = np.zeros((warps, m, k), np.uint64)
    B = np.zeros((warps, k, n), np.uint64)
    C = np.zeros((warps, m, n), np.uint64)
    for ri, regime in enumerate(P.REGIMES):
        sel = np.arange(ri, warps, len(P.REGIMES))
        rng = P.Rng(5000 + fi * 100 + ri)
        A[sel] = P.elements(a, rng, (len(sel), m, k), regime, "a")
        B[sel] = P.elements(b, rng, (len(sel), k, n), regime, "b")
        C[sel] = P.elements(c, rng, (len(sel), m, n), regime, "c")
    mem = []
    for M, t, lay in ((A, a, la), (B, b, lb), (C, c, "row")):
        M = M if lay == "row" else M.transpose(0, 2, 1)
        mem.append(np.ascontiguousarray(M).astype(NP[SIZE[t]]).view(np.uint8).ravel())
    return mem


def d_bytes(fi, warps):
    la, lb, (m, n, k), (d, a, b, c), _ = WMMA_FORMS[fi]
    return warps * m * n * SIZE[d]


def module(cp, text, outdir, name):
    path = os.path.join(outdir, name)
    with open(path, "w") as f:
        f.write(text)
    return cp.RawModule(path=path)


def gpu(outdir, warps):
    import cupy as cp
    res = {}
    os.makedirs(outdir, exist_ok=True)
    lmod = module(cp, layout_ptx(), outdir, "layout.ptx")
    for ci in range(len(LAYOUT_CASES)):
        planes, words = layout_inputs(ci)
        for pi, p in enumerate(planes):
            dst = cp.zeros(32 * words, dtype=cp.uint32)
            lmod.get_function(f"layout{ci}")((1,), (32,), (cp.asarray(p), dst))
            res[f"layout{ci}_{pi}"] = cp.asnumpy(dst)
    nmod = module(cp, numerics_ptx(), outdir, "wmma.ptx")
    for fi in range(len(WMMA_FORMS)):
        a, b, c = (cp.asarray(x) for x in tiles(fi, warps))
        dd = cp.zeros(d_bytes(fi, warps), dtype=cp.uint8)
        nmod.get_function(f"wmma{fi}")((warps // P.WARPS_PER_CTA,), (32 * P.WARPS_PER_CTA,), (a, b, c, dd))
        res[f"wmma{fi}"] = cp.asnumpy(dd)
    os.makedirs(outdir, exist_ok=True)
    np.savez_compressed(os.path.join(outdir, "wmma.npz"), **res)


def run_ptxrun(ptxrun, work, ptx, entry, params, grid, block):
    os.makedirs(os.path.join(work, "in"), exist_ok=True)
    with open(os.path.join(work, "k.ptx"), "w") as f:
        f.write(ptx)
    lines = [f'kernel = "k.ptx"\nentry = "{entry}"\ngrid = {grid}\nblock = {block}\n']
    outs = []
    for name, data in params:
        lines.append(f'[[params]]\nbuffer = "{name}"\ntype = "u8"\nlen = {len(data)}')
        if data.any():
            data.tofile(os.path.join(work, "in", f"{name}.bin"))
            lines.append(f'init = "in/{name}.bin"\n')
        else:
            lines.append('init = "zeros"\n')
            outs.append(name)
    lines.append("[outputs]\n" + "\n".join(f'{o} = "out/{o}.bin"' for o in outs))
    with open(os.path.join(work, "launch.toml"), "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run([ptxrun, "run", "--no-check", work], check=True, stdout=subprocess.DEVNULL)
    return {o: np.fromfile(os.path.join(work, "out", f"{o}.bin"), dtype=np.uint8) for o in outs}


def cpu(ptxrun, resdir, warps):
    res = np.load(os.path.join(resdir, "wmma.npz"))
    work = os.path.join(resdir, "cpu")
    lp, bad_layouts = layout_ptx(), 0
    for ci, case in enumerate(LAYOUT_CASES):
        planes, words = layout_inputs(ci)
        for pi, p in enumerate(planes):
            got = run_ptxrun(ptxrun, work, lp, f"layout{ci}", [("src", p.view(np.uint8)),
                                                               ("dst", np.zeros(32 * words * 4, np.uint8))], 1, 32)
            if not np.array_equal(got["dst"].view(np.uint32), res[f"layout{ci}_{pi}"]):
                bad_layouts += 1
                print(f"layout differs: {case} plane {pi}")
    print(f"fragment layouts: {len(LAYOUT_CASES)} cases (fragment x layout x shape x type), "
          f"{bad_layouts} differing from the H100")
    npx, total = numerics_ptx(), 0
    print("| form | mma | dot products | mismatching elements |\n|---|---|---|---|")
    for fi, form in enumerate(WMMA_FORMS):
        a, b, c = tiles(fi, warps)
        got = run_ptxrun(ptxrun, work, npx, f"wmma{fi}",
                         [("pa", a), ("pb", b), ("pc", c), ("pd", np.zeros(d_bytes(fi, warps), np.uint8))],
                         warps // P.WARPS_PER_CTA, 32 * P.WARPS_PER_CTA)["pd"]
        size = SIZE[form[3][0]]
        diff = got.view(NP[size]) != res[f"wmma{fi}"].view(NP[size])
        total += int(diff.sum())
        m, n, k = form[2]
        print(f"| `{opcode(form)}` | {warps} | {warps * m * n} | {int(diff.sum())} |")
        for i in np.nonzero(diff)[0][:4]:
            print(f"    element {i} (warp {i // (m * n)}, {P.REGIMES[(i // (m * n)) % len(P.REGIMES)]}): "
                  f"ptxrun {got.view(NP[size])[i]:#x} H100 {res[f'wmma{fi}'].view(NP[size])[i]:#x}")
    print(f"total mismatching elements: {total}")
    return total + bad_layouts


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "layout-ptx":
        open(sys.argv[2], "w").write(layout_ptx())
    elif cmd == "ptx":
        open(sys.argv[2], "w").write(numerics_ptx())
    elif cmd == "gpu":
        gpu(sys.argv[2], int(sys.argv[3]))
    elif cmd == "cpu":
        sys.exit(1 if cpu(sys.argv[2], sys.argv[3], int(sys.argv[4])) else 0)
