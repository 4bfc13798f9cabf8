#!/usr/bin/env python3
"""Accept/reject agreement between ptxas 13 (sm_90a) and `ptxrun parse` on doubtful video forms.

  ptxas_forms.py PTXAS PTXRUN      prints each disagreement; exits 1 if any

Each line below goes into its own kernel; ptxas's verdict is the truth (a form it rejects must be
an `ir::` error in ptxrun, a form it accepts must load).
"""
import itertools
import os
import subprocess
import sys
import tempfile

HEAD = """.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
\t.reg .b32 %r<10>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [p];
\tld.global.u32 %r1, [%rd1];
\tld.global.u32 %r2, [%rd1+4];
\tld.global.u32 %r3, [%rd1+8];
"""
TAIL = "\tst.global.u32 [%rd1], %r4;\n\tret;\n}\n"


def lines():
    out = []
    sels = ["", ".b0", ".b3", ".h1", ".b4", ".h2", ".h10", ".b3210"]
    for op in ["vadd", "vmin", "vshl", "vset", "vmad"]:
        ty = "u32.u32" if op == "vset" else "u32.u32.u32"
        cmp = ".lt" if op == "vset" else ""
        mode = ".clamp" if op == "vshl" else ""
        for mods in ["", ".sat", ".add", ".sat.max", ".po", ".shr7", ".wrap", ".lt", ".lo", ".h0"]:
            for ops in ["%r4, %r1, %r2", "%r4, %r1, %r2, %r3", "%r4.b1, %r1, %r2, %r3", "%r4.h1, %r1, %r2",
                        "%r4, -%r1, %r2, %r3", "%r4, %r1, -%r2, -%r3", "%r4, %r1, %r2, -%r3", "%r4, 5, %r2, 7",
                        "%r4, %r1, %r2, %r3.b0"]:
                out.append(f"{op}.{ty}{cmp}{mode}{mods} {ops};")
        for s in sels:
            out.append(f"{op}.{ty}{cmp}{mode} %r4, %r1{s}, %r2, %r3;")
            out.append(f"{op}.{ty}{cmp}{mode} %r4{s}, %r1, %r2, %r3;")
    for op in ["vadd2", "vavrg4", "vset2", "vset4", "vmax4"]:
        ty = "s32.u32" if op.startswith("vset") else "s32.u32.s32"
        cmp = ".ge" if op.startswith("vset") else ""
        for mods in ["", ".sat", ".add", ".sat.add", ".min", ".lt"]:
            out.append(f"{op}.{ty}{cmp}{mods} %r4, %r1, %r2, %r3;")
        for s in ["", ".h0", ".h1", ".h10", ".h01", ".h32", ".h3", ".b0", ".b10", ".b01", ".b320", ".b3210",
                  ".b7654", ".b33", ".b1", ".b2"]:
            out.append(f"{op}.{ty}{cmp} %r4{s}, %r1, %r2, %r3;")
            out.append(f"{op}.{ty}{cmp} %r4, %r1{s}, %r2, %r3;")
        for ops in ["%r4, %r1, %r2", "%r4, %r1, 3, %r3", "%r4, %r1, %r2, 3", "%r4, -%r1, %r2, %r3"]:
            out.append(f"{op}.{ty}{cmp} {ops};")
    for t in itertools.product(["u32", "s32", "b32", "u16", "s64"], repeat=3):
        if "u16" in t or "s64" in t or "b32" in t:
            out.append(f"vsub.{t[0]}.{t[1]}.{t[2]} %r4, %r1, %r2;")
    out += ["vshr.u32.u32.s32.wrap %r4, %r1, %r2;", "vshr.u32.u32.u32.wrap.clamp %r4, %r1, %r2;",
            "vadd.u32.u32 %r4, %r1, %r2;", "vset.u32.u32.u32.lt %r4, %r1, %r2;", "vadd.u32.u32.u32.add.min %r4, %r1, %r2, %r3;",
            "vmad.u32.u32.u32.shr7.shr15 %r4, %r1, %r2, %r3;", "vmad.u32.u32.u32.po.po %r4, %r1, %r2, %r3;",
            "add.u32 %r4, %r1.b1, %r2;", "mov.b32 %r4, %r1.h0;",
            "vadd.u32.u32.u32 %rd2, %r1, %r2;", "vadd.u32.u32.u32 %r4, %rd1, %r2;", "vadd.u32.u32.u32 %r4, %h1, %r2;",
            "vadd.u32.u32.u32 %r4, %f1, %r2;", "vadd.u32.u32.u32 %r4, %s1, %r2;", "vadd.u32.u32.u32 %s1, %r1, %r2, %r3;",
            "vadd.u32.u32.u32.add %r4, %r1, %r2, %rd1;", "vadd4.u32.u32.u32 %r4, %r1, %rd1, %r3;",
            "vmad.u32.u32.u32 %r4, %r1, %r2, %h1;", "vadd.u32.u32.u32 %r4, %p1, %r2;", "vadd.u32.u32.u32 %r4, 1.5, %r2;",
            "vadd.u32.u32.u32 %r4, %s1.b1, -5;", "vset2.u32.s32.ne %s1.h1, %s1.h21, %r2.h03, %s2;"]
    return out


def main():
    ptxas, ptxrun = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="vforms")
    path = os.path.join(tmp, "k.ptx")
    disagree = 0
    ls = lines()
    for line in ls:
        with open(path, "w") as f:
            f.write(HEAD + "\t" + line + "\n" + TAIL)
        ok_ptxas = subprocess.run([ptxas, "-arch=sm_90a", path, "-o", os.path.join(tmp, "k.cubin")],
                                  capture_output=True).returncode == 0
        r = subprocess.run([ptxrun, "parse", path], capture_output=True, text=True)
        ok_ptxrun = r.returncode == 0
        if ok_ptxas != ok_ptxrun:
            disagree += 1
            why = (r.stderr or r.stdout).strip().splitlines()
            print("%-60s ptxas %s, ptxrun %s  %s" % (line, "accepts" if ok_ptxas else "rejects",
                                                     "accepts" if ok_ptxrun else "rejects", why[:1]))
    print("%d forms, %d disagreements" % (len(ls), disagree))
    sys.exit(1 if disagree else 0)


if __name__ == "__main__":
    main()
