"""Runs the im2col probe's cases (probe.py) through ptxrun and compares them with a GPU's results.

  compare.py RESULTS.npz [CASE,CASE,...]    (default: docs/launch/im2col-h100.npz, every case)

Prints each case that differs and a tally; PTXRUN names the binary (default target/release/ptxrun).
"""
import os, subprocess, sys, shutil, tempfile
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if os.environ.get("PROBE_DIR"):  # another case list over these kernels (scripts/probes/tile-narrow)
    sys.path.insert(0, os.environ["PROBE_DIR"])
import probe, gpu

PTXRUN = os.environ.get("PTXRUN", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "target", "release", "ptxrun"))
ROOT = os.path.join(tempfile.gettempdir(), "ptxrun-im2col-cases")


def tomlmap(m, name):
    r = len(m["dims"])
    es = probe.TYPES[m["type"]][1]
    t = {"u32": "u32", "i32": "i32", "f32": "f32", "f16": "f16", "bf16": "bf16", "u8": "u8", "u16": "u16", "f64": "f64", "u64": "u64"}[m["type"]]
    lines = [f'tensormap = "{name}"', f'type = "{t}"', f"dims = {m['dims']}", f"strides = {m['strides']}",
             f"element_strides = {m['estrides']}", f'swizzle = "{m["swizzle"]}"', f'oob_fill = "{m["oob"]}"']
    if "tiled_box" in m:
        lines.append(f"box = {m['tiled_box']}")
    else:
        lines += ['mode = "im2col"', f"lower_corner = {m['lower']}", f"upper_corner = {m['upper']}",
                  f"channels_per_pixel = {m['channels']}", f"pixels_per_column = {m['pixels']}"]
    return "\n".join(lines)


def setup(i, c):
    d = os.path.join(ROOT, f"{i:03d}")
    os.makedirs(d, exist_ok=True)
    m = c["map"]
    k = c["kernel"]
    es = probe.TYPES[m["type"]][1]
    ext = (probe.extent(m) + 15) // 16 * 16
    gsz = gpu.gbuf_size(m)
    if gpu.is_store(k) and not k.startswith("rd"):
        full = b"\xee" * gsz
    else:
        full = gpu.gdata(m, gsz)
    open(os.path.join(d, "t.bin"), "wb").write(full[gpu.MAPOFF:gpu.MAPOFF + ext])
    open(os.path.join(d, "a.bin"), "wb").write(gpu.args_words(c, gpu=False).tobytes())
    dump, osize = gpu.case_sizes(c)
    shutil.copy(os.path.join(ROOT, "probe.ptx"), os.path.join(d, "kernel.ptx"))
    cl = "cluster = [2, 1, 1]\ngrid = [2, 1, 1]" if k.startswith("mc") else "grid = [1, 1, 1]"
    toml = f'''kernel = "kernel.ptx"
entry = "{k}"
{cl}
block = [128, 1, 1]

[[params]]
{tomlmap(m, "t")}
len = {ext // es}
init = "t.bin"

[[params]]
buffer = "o"
type = "u8"
len = {osize}

[[params]]
buffer = "a"
type = "u32"
len = 16
init = "a.bin"

[outputs]
o = "o.bin"
t = "tout.bin"
'''
    open(os.path.join(d, "launch.toml"), "w").write(toml)
    return d


def run(i, c, latency=None):
    d = setup(i, c)
    for f in ("o.bin", "tout.bin"):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    cmd = [PTXRUN, "run", d]
    if latency:
        cmd += ["--latency", latency]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    o = open(os.path.join(d, "o.bin"), "rb").read() if os.path.exists(os.path.join(d, "o.bin")) else None
    t = open(os.path.join(d, "tout.bin"), "rb").read() if os.path.exists(os.path.join(d, "tout.bin")) else None
    return p.returncode, p.stdout + p.stderr, o, t


def compare(i, c, rec, res):
    """-> (verdict, detail)"""
    k = c["kernel"]
    rc, text, o, t = res
    if rec is None:
        return "nogpu", ""
    st, data = rec
    if st != 0:
        return ("gpu-error", f"gpu status {st:#x}; ptxrun rc {rc}: " + text.strip().splitlines()[-1][:200] if text.strip() else "")
    if rc != 0:
        return "ptxrun-error", text.strip()[-400:]
    m = c["map"]
    if gpu.is_store(k):
        ext = (probe.extent(m) + 15) // 16 * 16
        g = data[gpu.MAPOFF:gpu.MAPOFF + ext]
        return ("ok" if g == t else "DIFF", "")
    if k.startswith("mc"):
        half = probe.SHBYTES + 64
        dump, _ = gpu.case_sizes(c)
        ok = all(data[r * half + 64:r * half + 64 + dump] == o[r * half + 64:r * half + 64 + dump] for r in (0, 1))
        return ("ok" if ok else "DIFF", "")
    dump, _ = gpu.case_sizes(c)
    hdr = np.frombuffer(data[:16], dtype=np.uint32)
    tx = probe.tile_bytes(m) + probe.PAD - int(hdr[2]) if hdr[3] else None
    okd = data[64:64 + dump] == o[64:64 + dump]
    okt = tx == probe.tile_bytes(m)
    return ("ok" if okd and okt else "DIFF", f"tx {tx} pred {probe.tile_bytes(m)}" if not okt else "")


def load_gpu(path):
    z = np.load(path)
    st, offs, data = z["status"], z["offs"], z["data"]
    recs = {}
    for i in range(len(st)):
        if st[i] >= 0:
            recs[i] = (int(st[i]), data[offs[i]:offs[i + 1]].tobytes())
    return recs, z


if __name__ == "__main__":
    os.makedirs(ROOT, exist_ok=True)
    open(os.path.join(ROOT, "probe.ptx"), "w").write(probe.ptx())
    C = probe.cases()
    here = os.path.dirname(os.path.abspath(__file__))
    gp = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "docs", "launch", "im2col-h100.npz")
    gp = gp if os.path.exists(gp) else None
    recs = load_gpu(gp)[0] if gp else {}
    sel = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else range(len(C))
    tally = {}
    for i in sel:
        c = C[i]
        res = run(i, c)
        v, det = compare(i, c, recs.get(i), res) if gp else (("ran" if res[0] == 0 else "ptxrun-error"), res[1].strip()[-300:] if res[0] else "")
        tally[v] = tally.get(v, 0) + 1
        if v not in ("ok", "ran"):
            print(i, c["kernel"], v, det.replace("\n", " | ")[:400])
    print(tally)
