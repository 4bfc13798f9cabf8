#!/usr/bin/env python3
"""Video-instruction probe (round 1): every form of forms.py over N lanes of adversarial + random operands.

gpu.py OUT.npz [--dry]
Writes: forms (the PTX lines), digests (forms x N/BLOCK uint32), raw (forms x RAW lanes uint32, the first
lanes: the adversarial cross), the operands, per-module errors, and one SASS listing.
"""
import concurrent.futures as cf
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import forms as F  # noqa: E402

T0 = time.time()
SEED = int(os.environ.get("VIDEO_SEED", "0"))  # 0: round 1's operands; round 2 ran seed 1
RAW0 = 0 if SEED == 0 else 512  # first lane kept raw: the adversarial cross, or random lanes
BUDGET = 115.0


def find_tool(name):
    p = shutil.which(name)
    if p:
        return p
    dirs = [os.path.join(os.environ.get(k, ""), "bin") for k in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(k)]
    try:
        import cupy
        dirs.append(os.path.join(cupy.cuda.get_cuda_path() or "", "bin"))
    except Exception:  # noqa: BLE001
        pass
    for d in dirs + ["/usr/local/cuda/bin", "/usr/local/cuda-13.0/bin"]:
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    return None


def compile_all(mods, tmp):
    """ptxas every module in parallel (sm_90a); returns {index: cubin path or None}, {index: error}."""
    ptxas = find_tool("ptxas")
    cubins, errs = {}, {}
    if ptxas is None:
        return cubins, {"ptxas": "not found"}

    def one(i):
        src = os.path.join(tmp, "m%02d.ptx" % i)
        dst = os.path.join(tmp, "m%02d.cubin" % i)
        with open(src, "w") as f:
            f.write(F.ptx(mods[i][2]))
        try:
            r = subprocess.run([ptxas, "-arch=sm_90a", src, "-o", dst], capture_output=True, text=True,
                               timeout=60)
        except Exception as e:  # noqa: BLE001
            return i, None, repr(e)
        return i, (dst if r.returncode == 0 else None), r.stderr[-2000:]

    with cf.ThreadPoolExecutor(max_workers=max(2, (os.cpu_count() or 4))) as ex:
        for i, path, err in ex.map(one, range(len(mods))):
            cubins[i] = path
            if path is None:
                errs[i] = err
    return cubins, errs


def sass_listing(tmp):
    """SASS of a few representative forms (for the docs)."""
    tool, ptxas = find_tool("cuobjdump"), find_tool("ptxas")
    if not tool or not ptxas:
        return "no cuobjdump"
    lines = ["vadd.u32.u32.u32.sat %r4, %r1, %r2;", "vadd.s32.s32.s32.sat %r4.h1, %r1.b1, %r2.h0, %r3;",
             "vabsdiff.s32.s32.u32.add %r4, %r1.b2, %r2, %r3;", "vshl.s32.s32.u32.clamp.sat %r4, %r1, %r2;",
             "vmad.s32.s32.s32.sat.shr15 %r4, %r1.h1, -%r2.b0, %r3;", "vset.s32.u32.lt.max %r4, %r1, %r2, %r3;",
             "vavrg2.s32.s32.s32.sat %r4.h1, %r1.h21, %r2.h03, %r3;", "vabsdiff4.u32.u32.u32.add %r4, %r1, %r2, %r3;",
             "vset4.s32.s32.gt %r4.b20, %r1.b7654, %r2.b0123, %r3;", "vmax4.s32.s32.s32.sat %r4, %r1, %r2, %r3;"]
    src, dst = os.path.join(tmp, "sass.ptx"), os.path.join(tmp, "sass.cubin")
    with open(src, "w") as f:
        f.write(F.ptx(lines))
    try:
        subprocess.run([ptxas, "-arch=sm_90a", src, "-o", dst], check=True, timeout=30, capture_output=True)
        return subprocess.run([tool, "-sass", dst], capture_output=True, text=True, timeout=30).stdout
    except Exception as e:  # noqa: BLE001
        return "sass failed: " + repr(e)


HERE = os.path.dirname(os.path.abspath(__file__))


SAMPLES = os.path.join(HERE, "..", "..", "..", "ptx-samples", "numerics")


def golden_file(name, what):
    """A golden sample's PTX (what = "ptx") or input ("a", "b", "c"): beside this script as
    golden_NAME.ptx / golden_NAME_X.bin (a probe folder), else in ptx-samples/numerics."""
    local = os.path.join(HERE, "golden_%s.ptx" % name if what == "ptx" else "golden_%s_%s.bin" % (name, what))
    if os.path.exists(local):
        return local
    d = os.path.join(SAMPLES, "video" if name == "video" else "video_intrinsics")
    return os.path.join(d, "kernel.ptx") if what == "ptx" else os.path.join(d, "inputs", what + ".bin")


def golden_runs(cp):
    """The two golden samples, three runs each: {name: output} (None where runs differ), and notes."""
    res, notes = {}, []
    cases = [("video", "video", "abc", 784 * 128, 1, 128), ("intr", "intrinsics", "ab", 82 * 512, 4, 128)]
    for name, entry, ins, nout, grid, block in cases:
        try:
            fn = cp.RawModule(path=golden_file(name, "ptx")).get_function(entry)
            args = [cp.asarray(np.fromfile(golden_file(name, x), np.uint32)) for x in ins]
            outs = []
            for _ in range(3):
                o = cp.zeros(nout, cp.uint32)
                fn((grid,), (block,), tuple(args) + (o,))
                cp.cuda.runtime.deviceSynchronize()
                outs.append(cp.asnumpy(o))
            same = all(np.array_equal(outs[0], x) for x in outs[1:])
            res[name] = outs[0] if same else None
            notes.append("%s: %s" % (name, "3 identical runs" if same else "RUNS DIFFER"))
        except Exception as e:  # noqa: BLE001
            notes.append("%s: %r" % (name, e))
    return res, notes


def main():
    out_path = sys.argv[1]
    dry = "--dry" in sys.argv
    allf = F.forms()
    mods = F.modules()
    nf = len(allf)
    ops = {fam: F.operands(fam, SEED) for fam in ("gen", "shift")}
    digest = np.zeros((nf, F.N // F.BLOCK), np.uint32)
    raw_full = np.zeros((nf, 512), np.uint32)
    done = np.zeros(nf, bool)
    errors = {}
    tmp = tempfile.mkdtemp(prefix="video")
    sass = ""
    device = "dry"
    if not dry:
        import cupy as cp
        device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
        cubins, errors = compile_all(mods, tmp)
        print("compiled %d modules in %.1fs, %d errors" % (len(mods), time.time() - T0, len(errors)))
        dev_ops = {fam: [cp.asarray(x) for x in v] for fam, v in ops.items()}
        for i, (fam, first, lines) in enumerate(mods):
            if time.time() - T0 > BUDGET:
                errors[i] = "skipped: time budget"
                continue
            try:
                if cubins.get(i):
                    m = cp.RawModule(path=cubins[i])
                else:
                    src = os.path.join(tmp, "jit%02d.ptx" % i)
                    with open(src, "w") as f:
                        f.write(F.ptx(lines))
                    m = cp.RawModule(path=src)
                fn = m.get_function("video")
                outb = cp.zeros((len(lines), F.N), cp.uint32)
                a, b, c = dev_ops[fam]
                fn((F.N // 128,), (128,), (a, b, c, outb))
                cp.cuda.runtime.deviceSynchronize()
                digest[first:first + len(lines)] = cp.asnumpy(F.digests(outb))
                raw_full[first:first + len(lines)] = cp.asnumpy(outb[:, RAW0:RAW0 + 512])
                done[first:first + len(lines)] = True
            except Exception as e:  # noqa: BLE001
                errors[i] = repr(e)[-2000:]
        sass = sass_listing(tmp)
        golden, gnotes = golden_runs(cp)
        print("golden:", "; ".join(gnotes))
    else:
        golden, gnotes = {"video": np.zeros(784 * 128, np.uint32), "intr": np.zeros(82 * 512, np.uint32)}, []
        for name in ("video", "intr"):
            assert os.path.exists(golden_file(name, "ptx"))
        # exercise packing with stand-in data
        for fam, first, lines in mods:
            a, b, c = ops[fam]
            outb = np.tile((a ^ b) + c, (len(lines), 1))
            digest[first:first + len(lines)] = F.digests(outb)
            raw_full[first:first + len(lines)] = outb[:, :512]
    shutil.rmtree(tmp, ignore_errors=True)
    err_text = "\n".join("module %s: %s" % (k, v) for k, v in sorted(errors.items(), key=lambda kv: str(kv[0])))
    import zlib
    sample = raw_full[::16].tobytes()
    est = len(zlib.compress(sample, 1)) * 16
    nraw = 512
    while nraw > 64 and est * nraw / 512 > 9_000_000:
        nraw //= 2
    np.savez_compressed(out_path, forms=np.array([l for _, l in allf]),
                        family=np.array([f for f, _ in allf]), digest=digest, raw=raw_full[:, :nraw],
                        done=done, errors=np.array(err_text), seed=np.array(SEED), raw0=np.array(RAW0), golden_notes=np.array("; ".join(gnotes)),
                        **{"golden_" + k: v for k, v in golden.items() if v is not None}, sass=np.array(sass), device=np.array(device),
                        a_gen=ops["gen"][0], b_gen=ops["gen"][1], c_gen=ops["gen"][2],
                        a_shift=ops["shift"][0], b_shift=ops["shift"][1], c_shift=ops["shift"][2])
    size = os.path.getsize(out_path)
    print("sizes", {k: v.shape for k, v in golden.items() if v is not None})
    print("device %s: %d forms, %d done, %d module errors, raw lanes %d, %.1f MB, %.1fs" %
          (device, nf, int(done.sum()), len(errors), nraw, size / 1e6, time.time() - T0))
    if err_text:
        print(err_text[:3000])


if __name__ == "__main__":
    main()
