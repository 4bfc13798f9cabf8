#!/usr/bin/env python3
"""Layout probes of wgmma (see README.md beside this file): the sparse metadata of every type, and
the descriptor's matrix base offset.

flips: for each type of FLIPS one kernel of 1 + 128 x 32 warpgroups (CTA row y: base metadata and
  sparsity selector y): compressed A holds distinct small values, B is the identity, so D is the
  decompressed A. CTA 0 uses the base metadata in every thread; CTA 1 + 32 t + b flips bit b of
  thread t's. The words of D that differ from CTA 0's say which row, group and index each bit
  holds. f16 is the control (the layout sparse_layout.py measured).
base offset: 1024 warpgroups of dense m64nNk16 f16 over a 48 KiB image of random f16 in [1, 2)
  (each 16-byte chunk unique): A from a descriptor with B the identity (D = A), or A the identity
  from registers with B from a descriptor (D = B's rows); K- or MN-major, every swizzle, base
  offset 0-7, canonical offsets at starts shifted by 128-byte rows or any 16 bytes, or random
  offsets.

  layout_probe.py gpu OUT.npz            (GPU + CuPy: both probes, D's differences / D as f16 bits)
  layout_probe.py cpu PTXRUN OUT.npz     the same kernels in ptxrun, compared with OUT.npz
  layout_probe.py sample OUT.npz SAMPLE C1,C2,...   a golden sample of base-offset CTAs C1, C2, ...
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import probe as wp  # noqa: E402  (the campaign: descriptor model, generator)


FLIP_CTAS = 1 + 128 * 32
FLIPS = {
    # name: (form, N, A type, A's K (compressed), D type, selectors, base metadata values)
    "f16": ("m64n32k32.f32.f16.f16", 32, "f16", 16, "f32", [0, 1], [0x44444444]),  # control (known layout)
    "tf32": ("m64n16k16.f32.tf32.tf32", 16, "tf32", 8, "f32", [0, 1], [0x44444444, 0xEEEEEEEE]),
    "e4m3": ("m64n64k64.f32.e4m3.e4m3", 64, "e4m3", 32, "f32", [0], [0x44444444]),
    "s8": ("m64n64k64.s32.s8.s8", 64, "s8", 32, "s32", [0], [0x44444444]),
    "u8": ("m64n64k64.s32.u8.u8", 64, "u8", 32, "s32", [0], [0x44444444]),
    "e5m2h": ("m64n64k64.f16.e5m2.e5m2", 64, "e5m2", 32, "f16", [0], [0x44444444]),
}
FLIP_IMG = 6144


def flip_image(t, n):
    """Compressed A (64 x 32 bytes, K-major, LBO 128, SBO 256) at 0, identity B (n x 64 bytes,
    LBO 128, SBO 512) at 2048."""
    img = np.zeros(FLIP_IMG, dtype=np.uint8)
    eb = {"tf32": 4, "f16": 2}.get(t, 1)
    ka = 32 // eb
    for r in range(64):
        if t == "f16":
            row = np.array([j + 1 + 16 * (r % 8) for j in range(ka)], dtype=np.float16).view(np.uint16).astype("<u2").tobytes()
        elif t == "tf32":
            vals = np.array([j + 1 + 8 * (r % 16) for j in range(ka)], dtype=np.float32).view(np.uint32)
            row = vals.astype("<u4").tobytes()
        elif t in ("e4m3",):
            row = bytes(0x38 + j for j in range(ka))
        elif t == "e5m2":
            row = bytes(0x3C + j for j in range(ka))  # 1.0 upward, distinct
        else:
            row = bytes(j + 1 + 32 * (r % 3) for j in range(ka))
        for c in range(2):
            at = (r % 8) * 16 + (r // 8) * 256 + c * 128
            img[at:at + 16] = np.frombuffer(row[16 * c:16 * c + 16], dtype=np.uint8)
    one = {"f16": 0x3C00, "tf32": 0x3F800000, "e4m3": 0x38, "e5m2": 0x3C, "s8": 1, "u8": 1}[t]
    k = 64 // eb
    for nn in range(n):
        row = np.zeros(k, dtype={4: np.uint32, 2: np.uint16, 1: np.uint8}[eb])
        if nn < k:
            row[nn] = one
        rb = row.tobytes()
        for c in range(4):
            at = 2048 + (nn % 8) * 16 + (nn // 8) * 512 + c * 128
            img[at:at + 16] = np.frombuffer(rb[16 * c:16 * c + 16], dtype=np.uint8)
    return img


def flip_ptx(name):
    form, n, t, ka, d, sels, bases = FLIPS[name]
    rows = len(sels) * len(bases)
    nd = n // 2 if d != "f16" else n // 4
    f32 = d == "f32"
    reg = (lambda i: f"%f{i}") if f32 else (lambda i: f"%d{i}")
    L = [".version 8.7", ".target sm_90a", ".address_size 64", "",
         ".visible .entry flip_probe(.param .u64 img, .param .u64 meta, .param .u64 out)", ".maxntid 128, 1, 1", "{",
         "  .reg .pred %p<4>;", "  .reg .b32 %r<40>;", "  .reg .b64 %rd<16>;", "  .reg .f32 %f<40>;", "  .reg .b32 %d<40>;",
         f"  .shared .align 1024 .b8 sm[{FLIP_IMG}];",
         "  ld.param.u64 %rd1, [img];", "  ld.param.u64 %rd2, [meta];", "  ld.param.u64 %rd3, [out];",
         "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;", "  cvta.to.global.u64 %rd3, %rd3;",
         "  mov.u32 %r1, %tid.x;", "  mov.u32 %r2, %ctaid.x;", "  mov.u32 %r3, %ctaid.y;", "  mov.u32 %r4, sm;",
         "  shl.b32 %r5, %r1, 4;", "  cvt.u64.u32 %rd4, %r5;", "  add.s64 %rd4, %rd1, %rd4;", "  add.u32 %r6, %r4, %r5;"]
    for i in range(FLIP_IMG // 2048):
        L += [f"  ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd4+{i * 2048}];",
              f"  st.shared.v4.u32 [%r6+{i * 2048}], {{%r10, %r11, %r12, %r13}};"]
    L += [f"  mad.lo.u32 %r7, %r3, {FLIP_CTAS}, %r2;", "  mad.lo.u32 %r8, %r7, 128, %r1;",
          "  mul.wide.u32 %rd5, %r8, 4;", "  add.s64 %rd5, %rd2, %rd5;", "  ld.global.u32 %r9, [%rd5];",
          "  shr.u32 %r14, %r4, 4;", "  cvt.u64.u32 %rd6, %r14;",
          "  or.b64 %rd7, %rd6, 0x0000001000080000;",  # A: LBO 128, SBO 256
          "  add.s64 %rd8, %rd6, 128;", "  or.b64 %rd8, %rd8, 0x0000002000080000;",  # B at +2048: LBO 128, SBO 512
          "  fence.proxy.async.shared::cta;", "  bar.sync 0;"]
    for i in range(nd):
        L.append(f"  mov.f32 {reg(i)}, 0f00000000;" if f32 else f"  mov.b32 {reg(i)}, 0;")
    L.append("  wgmma.fence.sync.aligned;")
    for y in range(rows):
        L += [f"  setp.eq.u32 %p2, %r3, {y};", f"  @%p2 bra S{y};"]
    L.append("  ret;")
    dl = "{" + ", ".join(reg(i) for i in range(nd)) + "}"
    for y in range(rows):
        sel = sels[y % len(sels)]
        ops = [dl, "%rd7", "%rd8", "%r9", str(sel), "0"]
        if t not in ("s8", "u8"):
            ops += ["1", "1"]
        if t == "f16":
            ops += ["0", "0"]
        L += [f"S{y}:", f"  wgmma.mma_async.sp.sync.aligned.{form} {', '.join(ops)};",
              "  wgmma.commit_group.sync.aligned;", "  wgmma.wait_group.sync.aligned 0;",
              f"  mul.wide.u32 %rd9, %r8, {4 * nd};", "  add.s64 %rd9, %rd3, %rd9;"]
        for i in range(nd):
            L.append(f"  st.global.b32 [%rd9+{4 * i}], {reg(i)};")
        L.append("  ret;")
    L.append("}")
    return "\n".join(L) + "\n", rows, nd


def flip_metas(name):
    form, n, t, ka, d, sels, bases = FLIPS[name]
    rows = []
    for b in bases:
        for _ in sels:
            m = np.full((FLIP_CTAS, 128), b, dtype=np.uint32)
            for th in range(128):
                for bit in range(32):
                    m[1 + th * 32 + bit, th] ^= np.uint32(1 << bit)
            rows.append(m)
    return np.stack(rows)  # (rows, CTAS, 128); row = base index * len(sels) + sel index


BO_IMG = 49152
BO_CTAS = 1024
BO_N = 32  # N of the B-from-descriptor kind


def bo_image():
    rng = wp.mp.Rng(424242)
    mant = rng.ints((BO_IMG // 2,), 0, 1024).astype(np.uint16)
    img = (np.uint16(0x3C00) | mant).astype(np.uint16)  # f16 in [1, 2)
    # identity B (16 x 16 f16, K-major, LBO 128, SBO 256) at 0
    img[:1024] = 0
    for nn in range(16):
        for c in range(2):
            at = ((nn % 8) * 16 + (nn // 8) * 256 + c * 128) // 2
            row = np.zeros(8, dtype=np.uint16)
            if nn // 8 == c:
                row[nn % 8] = 0x3C00
            img[at:at + 8] = row
    return img


def bo_a_identity():
    """A = identity (16 x 16 f16) in the m16n8k16 fragment: lane's 4 registers."""
    regs = np.zeros((32, 4), dtype=np.uint32)
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for r in range(4):
            for j in range(2):
                row = g + 8 * (r % 2)
                col = 2 * t + j + 8 * (r // 2)
                if row == col:
                    regs[lane, r] |= np.uint32(0x3C00 << (16 * j))
    return regs


def bo_params():
    """Per CTA: kind (0 A desc K-major, 1 A desc MN-major, 2 B desc K-major, 3 B desc MN-major),
    the tested descriptor (start, lbo, sbo, swizzle, base offset) and the encoded descriptors."""
    rng = wp.mp.Rng(777)
    rows = []
    for i in range(BO_CTAS):
        kind = i % 4
        swz = [0, 128, 64, 32][(i // 4) % 4]
        base = (i // 16) % 8
        mn = kind in (1, 3)
        nrows = 64 if kind < 2 else BO_N
        for _ in range(1000):
            style = int(rng.ints((1,), 0, 4)[0])
            if style < 3:  # canonical offsets, start shifted by 0 .. 7 pattern rows (128 B) or any 16 B
                if not mn:
                    lbo, sbo = (128, 256) if swz == 0 else (16, 8 * swz)
                else:
                    per = max(1, swz // 16)
                    if swz == 0:
                        sbo, lbo = 128, 128 * (nrows // 8)
                    else:
                        lbo = 8 * swz
                        sbo = lbo * (-(-nrows // (8 * per)))
                start = 1024 * int(rng.ints((1,), 2, 40)[0])
                if style == 1:
                    start += 128 * int(rng.ints((1,), 0, 8)[0])
                elif style == 2:
                    start += 16 * int(rng.ints((1,), 0, 64)[0])
            else:
                start = 2048 + 16 * int(rng.ints((1,), 0, 2048)[0])
                lbo = 16 * int(rng.ints((1,), 0, 100)[0])
                sbo = 16 * int(rng.ints((1,), 0, 100)[0])
            desc = (start, lbo, sbo, swz)
            if start >= 2048 and wp.footprint(desc, mn, nrows, 16) <= BO_IMG - 2048:
                break
        enc = wp.encode(desc) | (base << 49)
        ident = wp.encode((0, 128, 256, 0))
        rows.append((kind, start, lbo, sbo, swz, base, enc, ident))
    return rows


def bo_ptx():
    L = [".version 8.7", ".target sm_90a", ".address_size 64", "",
         ".visible .entry bo_probe(.param .u64 img, .param .u64 par, .param .u64 areg, .param .u64 out)",
         ".maxntid 128, 1, 1", "{",
         "  .reg .pred %p<4>;", "  .reg .b32 %r<40>;", "  .reg .b64 %rd<16>;", "  .reg .f32 %f<40>;", "  .reg .b32 %a<4>;",
         f"  .shared .align 1024 .b8 sm[{BO_IMG}];",
         "  ld.param.u64 %rd1, [img];", "  ld.param.u64 %rd2, [par];", "  ld.param.u64 %rd3, [out];", "  ld.param.u64 %rd12, [areg];",
         "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;", "  cvta.to.global.u64 %rd3, %rd3;",
         "  cvta.to.global.u64 %rd12, %rd12;",
         "  mov.u32 %r1, %tid.x;", "  mov.u32 %r2, %ctaid.x;", "  mov.u32 %r4, sm;",
         "  shl.b32 %r5, %r1, 4;", "  cvt.u64.u32 %rd4, %r5;", "  add.s64 %rd4, %rd1, %rd4;", "  add.u32 %r6, %r4, %r5;"]
    for i in range(BO_IMG // 2048):
        L += [f"  ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd4+{i * 2048}];",
              f"  st.shared.v4.u32 [%r6+{i * 2048}], {{%r10, %r11, %r12, %r13}};"]
    # params: 4 u64 per CTA: kind, tested desc, identity desc, unused (addresses relative to sm)
    L += ["  mul.wide.u32 %rd5, %r2, 32;", "  add.s64 %rd5, %rd2, %rd5;",
          "  ld.global.u32 %r7, [%rd5];", "  ld.global.u64 %rd6, [%rd5+8];", "  ld.global.u64 %rd7, [%rd5+16];",
          "  shr.u32 %r14, %r4, 4;", "  cvt.u64.u32 %rd8, %r14;", "  add.s64 %rd6, %rd6, %rd8;", "  add.s64 %rd7, %rd7, %rd8;",
          "  and.b32 %r15, %r1, 31;", "  mul.wide.u32 %rd9, %r15, 16;", "  add.s64 %rd9, %rd12, %rd9;"]
    for j in range(4):
        L.append(f"  ld.global.b32 %a{j}, [%rd9+{4 * j}];")
    L += ["  fence.proxy.async.shared::cta;", "  bar.sync 0;"]
    for i in range(16):
        L.append(f"  mov.f32 %f{i}, 0f00000000;")
    L.append("  wgmma.fence.sync.aligned;")
    for y in range(4):
        L += [f"  setp.eq.u32 %p2, %r7, {y};", f"  @%p2 bra K{y};"]
    L.append("  bra DONE;")
    d8 = "{" + ", ".join(f"%f{i}" for i in range(8)) + "}"
    d16 = "{" + ", ".join(f"%f{i}" for i in range(16)) + "}"
    for y in range(4):
        if y < 2:
            ins = f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {d8}, %rd6, %rd7, 0, 1, 1, {y}, 0;"
        else:
            ins = f"wgmma.mma_async.sync.aligned.m64n{BO_N}k16.f32.f16.f16 {d16}, {{%a0, %a1, %a2, %a3}}, %rd6, 0, 1, 1, {y - 2};"
        L += [f"K{y}:", "  " + ins, "  wgmma.commit_group.sync.aligned;", "  wgmma.wait_group.sync.aligned 0;",
              "  bra DONE;"]
    L += ["DONE:", "  mad.lo.u32 %r16, %r2, 128, %r1;", "  mul.wide.u32 %rd10, %r16, 64;", "  add.s64 %rd10, %rd3, %rd10;"]
    for i in range(16):
        L.append(f"  st.global.f32 [%rd10+{4 * i}], %f{i};")
    L += ["  ret;", "}"]
    return "\n".join(L) + "\n"




def flip_run(name, launch):
    """D of every CTA of the flip kernel `name`, (rows, CTAS, 128, regs) words."""
    text, rows, nd = flip_ptx(name)
    img = flip_image(FLIPS[name][2], FLIPS[name][1])
    out = launch(text, "flip_probe", (FLIP_CTAS, rows),
                 [img.view(np.uint32), flip_metas(name)], rows * FLIP_CTAS * 128 * nd)
    return out.reshape(rows, FLIP_CTAS, 128, nd)


def flip_summary(out):
    """CTA 0's D and the (flat index, value) of every word another CTA changed."""
    base = out[:, :1]
    idx = np.flatnonzero(out != base)
    return base[:, 0], idx.astype(np.int64), out.reshape(-1)[idx]


def bo_run(launch):
    par = bo_params()
    words = np.array([[p[0], p[6], p[7], 0] for p in par], dtype=np.uint64)
    out = launch(bo_ptx(), "bo_probe", (BO_CTAS, 1),
                 [bo_image().view(np.uint32), words.view(np.uint32), bo_a_identity()], BO_CTAS * 128 * 16)
    d = out.view(np.float32).reshape(BO_CTAS, 128, 16).astype(np.float16).view(np.uint16)
    # kinds 0 and 1 write 8 registers: the rest is 0
    return np.array([p[:6] for p in par], dtype=np.int64), d


def gpu_launch(text, entry, grid, ins, out_words):
    import cupy as cp
    path = os.path.join(tempfile.mkdtemp(), entry + ".ptx")
    with open(path, "w") as f:
        f.write(text)
    fn = cp.RawModule(path=path).get_function(entry)
    args = [cp.asarray(a) for a in ins]
    out = cp.zeros(out_words, dtype=cp.uint32)
    fn(grid, (128,), (*args, out))
    cp.cuda.Device().synchronize()
    return cp.asnumpy(out)


def ptxrun_launch(ptxrun):
    def launch(text, entry, grid, ins, out_words):
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "inputs"))
        with open(os.path.join(d, "kernel.ptx"), "w") as f:
            f.write(text)
        toml = [f'kernel = "kernel.ptx"\nentry = "{entry}"\ngrid = [{grid[0]}, {grid[1]}]\nblock = 128\n']
        for i, a in enumerate(ins):
            a = np.ascontiguousarray(a).view(np.uint32)
            a.tofile(os.path.join(d, "inputs", f"in{i}.bin"))
            toml.append(f'[[params]]\nbuffer = "in{i}"\ntype = "u32"\nlen = {a.size}\ninit = "inputs/in{i}.bin"\n')
        toml.append(f'[[params]]\nbuffer = "out"\ntype = "u32"\nlen = {out_words}\ninit = "zeros"\n\n'
                    '[outputs]\nout = "out/out.bin"\n')
        with open(os.path.join(d, "launch.toml"), "w") as f:
            f.write("\n".join(toml))
        subprocess.run([ptxrun, "run", "--no-check", os.path.join(d, "launch.toml")], check=True,
                       stdout=subprocess.DEVNULL)
        return np.fromfile(os.path.join(d, "out", "out.bin"), dtype=np.uint32)
    return launch


def collect(launch):
    res = {}
    for name in FLIPS:
        base, idx, val = flip_summary(flip_run(name, launch))
        res.update({f"flip_{name}_base": base, f"flip_{name}_idx": idx, f"flip_{name}_val": val})
    res["bo_params"], res["bo_out"] = bo_run(launch)
    return res


def compare(mine, res):
    """Prints the table of the README; returns the number of differences."""
    bad_total = 0
    print("| probe | warpgroups | differing |\n|---|---|---|")
    for name in FLIPS:
        keys = [f"flip_{name}_{k}" for k in ("base", "idx", "val")]
        same = all(np.array_equal(mine[k], res[k]) for k in keys)
        rows = len(FLIPS[name][5]) * len(FLIPS[name][6])
        print(f"| flips `{FLIPS[name][0]}` | {rows * FLIP_CTAS} | {0 if same else 'yes'} "
              f"({len(res[keys[1]])} words changed by flips) |")
        bad_total += not same
    kinds = mine["bo_params"][:, 0]
    a, b = mine["bo_out"], res["bo_out"]
    bad = [i for i in range(len(kinds)) if not np.array_equal(a[i], b[i])]
    print(f"| base offset (swizzle x base 0-7 x K/MN-major A or B) | {len(kinds)} | {len(bad)} |")
    return bad_total + len(bad)


def bo_sample(res, sdir, picked):
    """A golden sample of the base-offset probe's CTAs `picked`; expected/ is the GPU's D (the
    probe keeps it as f16 bits: every value is an f16 of the image or 0, so widening is exact)."""
    par = bo_params()
    words = np.array([[par[i][0], par[i][6], par[i][7], 0] for i in picked], dtype=np.uint64)
    os.makedirs(os.path.join(sdir, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(sdir, "expected"), exist_ok=True)
    with open(os.path.join(sdir, "kernel.ptx"), "w") as f:
        f.write(bo_ptx())
    bo_image().tofile(os.path.join(sdir, "inputs", "img.bin"))
    words.tofile(os.path.join(sdir, "inputs", "par.bin"))
    bo_a_identity().tofile(os.path.join(sdir, "inputs", "areg.bin"))
    res["bo_out"][picked].view(np.float16).astype(np.float32).tofile(os.path.join(sdir, "expected", "out.bin"))
    n = len(picked)
    params = [("img", BO_IMG // 4), ("par", 8 * n), ("areg", 128)]
    with open(os.path.join(sdir, "launch.toml"), "w") as f:
        f.write(f'kernel = "kernel.ptx"\nentry = "bo_probe"\ngrid = [{n}, 1]\nblock = 128\n\n')
        for name, size in params:
            f.write(f'[[params]]\nbuffer = "{name}"\ntype = "u32"\nlen = {size}\ninit = "inputs/{name}.bin"\n\n')
        f.write(f'[[params]]\nbuffer = "out"\ntype = "f32"\nlen = {n * 128 * 16}\ninit = "zeros"\n\n'
                '[outputs]\nout = "out/out.bin"\n\n[expect]\noutputs = { out = "expected/out.bin" }\n')


if __name__ == "__main__":
    if sys.argv[1] == "gpu":
        np.savez_compressed(sys.argv[2], **collect(gpu_launch))
    elif sys.argv[1] == "cpu":
        sys.exit(1 if compare(collect(ptxrun_launch(sys.argv[2])), np.load(sys.argv[3])) else 0)
    elif sys.argv[1] == "sample":
        bo_sample(np.load(sys.argv[2]), sys.argv[3], [int(c) for c in sys.argv[4].split(",")])
