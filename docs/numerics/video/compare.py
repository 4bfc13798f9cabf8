#!/usr/bin/env python3
"""The CPU half of the video campaign (README.md beside this file): run every module of forms.py on
ptxrun (`ptxrun run`, the same PTX and operands the GPU ran) and compare with the GPU's npz.

  compare.py GPU.npz [--ptxrun PATH] [--only SUBSTRING] [--show N]

Prints, per instruction, forms x lanes compared and mismatching forms; exits 1 on any mismatch.
A form's lanes are compared raw where the npz kept them (the adversarial cross) and by 64-lane
block digests elsewhere.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import forms as F  # noqa: E402

LAUNCH = 'kernel = "k.ptx"\nentry = "video"\ngrid = {grid}\nblock = 128\n' + "".join(
    '[[params]]\nbuffer = "%s"\ntype = "u32"\nlen = %s\ninit = "%s"\n' % p
    for p in (("a", "{n}", "a.bin"), ("b", "{n}", "b.bin"), ("c", "{n}", "c.bin"), ("out", "{nout}", "zeros"))
) + '[outputs]\nout = "out.bin"\n'


def run_module(ptxrun, lines, ops, tmp):
    """ptxrun's outputs (len(lines) x N uint32) for one module, or an error string."""
    with open(os.path.join(tmp, "k.ptx"), "w") as f:
        f.write(F.ptx(lines))
    for name, v in zip("abc", ops):
        v.astype(np.uint32).tofile(os.path.join(tmp, name + ".bin"))
    with open(os.path.join(tmp, "launch.toml"), "w") as f:
        f.write(LAUNCH.format(grid=F.N // 128, n=F.N, nout=len(lines) * F.N))
    r = subprocess.run([ptxrun, "run", os.path.join(tmp, "launch.toml"), "--no-check"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return r.stdout[-3000:] + r.stderr[-3000:]
    return np.fromfile(os.path.join(tmp, "out.bin"), np.uint32).reshape(len(lines), F.N)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("npz")
    ap.add_argument("--ptxrun", default=os.path.join(HERE, "..", "..", "..", "target", "release", "ptxrun"))
    ap.add_argument("--only", default="")
    ap.add_argument("--show", type=int, default=3)
    args = ap.parse_args()
    z = np.load(args.npz)
    gforms = list(z["forms"])
    allf = F.forms()
    assert [l for _, l in allf] == gforms, "forms.py differs from the one the GPU ran"
    raw, digest, done = z["raw"], z["digest"], z["done"]
    nraw = raw.shape[1]
    raw0 = int(z["raw0"]) if "raw0" in z else 0
    ops = {fam: (z["a_" + fam], z["b_" + fam], z["c_" + fam]) for fam in ("gen", "shift")}
    stats = collections.defaultdict(lambda: [0, 0, 0])  # instruction -> [forms, lanes, bad forms]
    bad = []
    tmp = tempfile.mkdtemp(prefix="videocmp")
    for fam, first, lines in F.modules():
        idx = [first + j for j, l in enumerate(lines) if args.only in l and done[first + j]]
        if not idx:
            continue
        out = run_module(args.ptxrun, lines, ops[fam], tmp)
        if isinstance(out, str):
            print("module at %d: ptxrun failed:\n%s" % (first, out))
            bad.extend(idx)
            continue
        dig = F.digests(out)
        for i in idx:
            j = i - first
            name = gforms[i].split(".")[0]
            s = stats[name]
            s[0] += 1
            s[1] += F.N
            raw_bad = np.nonzero(out[j, raw0:raw0 + nraw] != raw[i])[0] + raw0
            blk_bad = np.nonzero(dig[j] != digest[i])[0]
            if len(raw_bad) or len(blk_bad):
                s[2] += 1
                bad.append(i)
                if sum(1 for b in bad if gforms[b].split(".")[0] == name) <= args.show:
                    print("MISMATCH %s  (fam %s) raw lanes %d, blocks %s" % (gforms[i], fam, len(raw_bad),
                                                                          list(blk_bad[:8])))
                    a, b, c = ops[fam]
                    for lane in raw_bad[:6]:
                        print("   lane %3d a=%08x b=%08x c=%08x gpu=%08x ptxrun=%08x" %
                              (lane, a[lane], b[lane], c[lane], raw[i][lane - raw0], out[j, lane]))
    print("%-10s %7s %10s %6s" % ("instr", "forms", "lanes", "bad"))
    for k in sorted(stats):
        print("%-10s %7d %10d %6d" % (k, *stats[k]))
    tot = np.array(list(stats.values())).sum(axis=0) if stats else [0, 0, 0]
    print("total: %d forms, %d lanes, %d mismatching forms (GPU: %s)" % (tot[0], tot[1], tot[2], z["device"]))
    with open(os.path.join(tmp, "bad.txt"), "w") as f:
        f.write("\n".join(gforms[i] for i in bad))
    print("mismatching forms listed in", os.path.join(tmp, "bad.txt"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
